/* exactune's C ABI for the token-major LayerNorm + modulate family: its
 * reference and variants on the GPU, for callers outside C++ (tests/torch
 * checks them against real PyTorch with ctypes). The problem is the contiguous
 * family's exactune_problem (layer_norm_modulate/capi/exactune_capi.h), with x
 * holding the (batch, hidden, tokens) memory of a token-major x: element
 * (b, n, c) of the logical (batch, tokens, hidden) tensor at
 * x[(b * hidden + c) * tokens + n], as torch's y.permute(0, 2, 1) of a
 * contiguous (batch, hidden, tokens) y. Outputs are contiguous
 * (batch, tokens, hidden), as aten's. Statuses and errors as in that header. */
#ifndef EXACTUNE_TOKEN_MAJOR_CAPI_H
#define EXACTUNE_TOKEN_MAJOR_CAPI_H
#include "layer_norm_modulate/capi/exactune_capi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reference chain: aten's x.contiguous(), LayerNorm and eager chain. */
int exactune_token_major_reference(const exactune_problem* problem, uint16_t* out);

/* The valid variants at this hidden size, one name per line. */
int exactune_token_major_list_variants(int32_t hidden, char* names, size_t capacity);

/* A pairwise cover of them, one name per line: every pair of axis values that
 * some valid variant holds together, some listed one holds (a few dozen, where
 * running every variant would take minutes of compiles). */
int exactune_token_major_list_covering_variants(int32_t hidden, char* names, size_t capacity);

/* One variant by name into out, compiled through the on-disk cache on first use. */
int exactune_token_major_run_variant(const exactune_problem* problem, const char* variant, uint16_t* out);

#ifdef __cplusplus
}
#endif
#endif
