/* The runtime entry of the gated_residual_layer_norm_modulate family: the bits
 * of PyTorch 2.11's eager chain
 *     residual = x + gate * h
 *     out = F.layer_norm(residual, (hidden,), eps=eps) * (1 + scale) + shift
 * in bf16, both outputs written by the variant the tables chose for this GPU,
 * launched on the caller's stream. Returns an exactune_status
 * (exactune/runtime.h); a GPU without a table of this family is not served. */
#ifndef EXACTUNE_GATED_RESIDUAL_LAYER_NORM_MODULATE_H
#define EXACTUNE_GATED_RESIDUAL_LAYER_NORM_MODULATE_H
#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* modulate: x, scale, shift, out, the sizes, x's strides, eps, device and
 * stream, served as layer_norm_modulate's (x contiguous, 8-byte alignment,
 * per-token modulation as batch = B * S, tokens = 1). h is bf16 (batch,
 * tokens, hidden) contiguous like x; gate's rows are batch b's at gate + b *
 * gate_row_stride, and gate, scale and shift share one row stride (rows of one
 * adaLN embedding: the kernel takes one). residual is bf16 (batch, tokens,
 * hidden) contiguous and overlaps none of the inputs. */
typedef struct exactune_gated_residual_layer_norm_modulate_args {
  exactune_layer_norm_modulate_args modulate;
  const void* h;
  const void* gate;
  int64_t gate_row_stride;
  void* residual;
} exactune_gated_residual_layer_norm_modulate_args;

int exactune_gated_residual_layer_norm_modulate(const exactune_gated_residual_layer_norm_modulate_args* args);

/* The variant the last successful call on this thread launched, as "<variant> (<step>)". */
const char* exactune_gated_residual_layer_norm_modulate_last_variant(void);

#ifdef __cplusplus
}
#endif
#endif
