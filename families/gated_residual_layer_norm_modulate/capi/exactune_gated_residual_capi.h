/* exactune's C ABI for the gated residual + LayerNorm + modulate family: its
 * reference and variants on the GPU, for callers outside C++ (tests/torch
 * checks them against real PyTorch with ctypes). The problem is
 * layer_norm_modulate's exactune_problem (layer_norm_modulate/capi/
 * exactune_capi.h: x, and scale and shift as rows of the embedding) with the
 * block's output h beside x and gate as a third row of the embedding. Both
 * outputs are contiguous (batch, tokens, hidden): the new residual stream
 * r = x + gate * h and out = LN(r) * (1 + scale) + shift. Statuses and errors
 * as in that header. */
#ifndef EXACTUNE_GATED_RESIDUAL_CAPI_H
#define EXACTUNE_GATED_RESIDUAL_CAPI_H
#include "layer_norm_modulate/capi/exactune_capi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* h is (batch, tokens, hidden), as x; gate is batch b's row at
 * modulate.embedding + b * modulate.modulation_stride + gate_offset. */
typedef struct exactune_gated_residual_problem {
  exactune_problem modulate;
  const uint16_t* h;
  int64_t gate_offset;
} exactune_gated_residual_problem;

/* The reference: eager's at::mul and at::add into residual, then the LayerNorm
 * and eager chain on it into out (both rows * hidden; either may be NULL). */
int exactune_gated_residual_reference(const exactune_gated_residual_problem* problem, uint16_t* residual,
                                      uint16_t* out);

/* The valid variants at this hidden size, one name per line. */
int exactune_gated_residual_list_variants(int32_t hidden, char* names, size_t capacity);

/* A pairwise cover of them, one name per line: every pair of axis values that
 * some valid variant holds together, some listed one holds. */
int exactune_gated_residual_list_covering_variants(int32_t hidden, char* names, size_t capacity);

/* One variant by name into residual and out (rows * hidden each; not NULL),
 * compiled through the on-disk cache on first use. */
int exactune_gated_residual_run_variant(const exactune_gated_residual_problem* problem, const char* variant,
                                        uint16_t* residual, uint16_t* out);

#ifdef __cplusplus
}
#endif
#endif
