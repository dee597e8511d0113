/* The runtime entry of the layer_norm_modulate_token_major family: out = the
 * bits of PyTorch 2.11's eager chain
 *     F.layer_norm(x, (hidden,), eps=eps) * (1 + scale) + shift
 * in bf16 for a token-major x (Sana's activations: (batch, tokens, hidden)
 * whose memory is (batch, hidden, tokens)), read in place by the tile variant
 * the tables chose for this GPU, launched on the caller's stream. Returns an
 * exactune_status (exactune/runtime.h). */
#ifndef EXACTUNE_LAYER_NORM_MODULATE_TOKEN_MAJOR_H
#define EXACTUNE_LAYER_NORM_MODULATE_TOKEN_MAJOR_H
#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The arguments of exactune_layer_norm_modulate, with x_strides those of a
 * token-major x: (hidden * tokens, 1, tokens). Served as that entry serves,
 * except that x needs no alignment, by the in-place variant (tile or lanes)
 * the tables choose: they never choose a copy variant (KernelFamily::
 * not_chosen_because). Where a copy variant would run (the global default of a
 * GPU without a table, aten's own path, or a hand-made table), the call is not
 * served and the framework's chain (which copies x too) runs. out is
 * contiguous (batch, tokens, hidden). */
int exactune_layer_norm_modulate_token_major(const exactune_layer_norm_modulate_args* args);

/* As exactune_layer_norm_modulate_last_variant, for this entry. */
const char* exactune_layer_norm_modulate_token_major_last_variant(void);

#ifdef __cplusplus
}
#endif
#endif
