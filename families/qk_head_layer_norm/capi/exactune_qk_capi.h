/* exactune's C ABI for the qk_head_layer_norm family: the reference and the
 * fused variants of the per-head q/k LayerNorm on the GPU, for callers outside
 * C++ (tests/torch loads it with ctypes to check the family against real
 * PyTorch). Buffers are host memory; bf16 values travel as their uint16 bits.
 * Every function returns an exactune_status (exactune/runtime.h): EXACTUNE_OK;
 * EXACTUNE_NOT_SERVED for a problem the family does not serve (a head_dim aten
 * runs through another kernel, more rows than it serves); EXACTUNE_INVALID_ARGUMENT
 * for arguments that describe no problem (a NULL pointer, a count below one);
 * EXACTUNE_ERROR when the GPU or the compiler fails. The reason, naming the
 * argument, is in exactune_qk_last_error() (the same text as exactune_last_error()).
 * Arguments are checked before anything is compiled, loaded or copied. */
#ifndef EXACTUNE_QK_CAPI_H
#define EXACTUNE_QK_CAPI_H
#include <exactune/runtime.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The problem: q and k are each (batch, tokens, heads, head_dim), contiguous;
 * every output below has the shape of its input (or one float per row,
 * rows = batch * tokens * heads). */
typedef struct exactune_qk_problem {
  const uint16_t* q;
  const uint16_t* k;
  int32_t batch;
  int32_t tokens;
  int32_t heads;
  int32_t head_dim;
  double eps;
} exactune_qk_problem;

/* The reason of the last failure of a call of the C ABI on this thread. */
const char* exactune_qk_last_error(void);

/* The reference (aten's LayerNorm, run on q's rows and then on k's): the
 * outputs and aten's mean and rstd per row (any output may be NULL). */
int exactune_qk_reference(const exactune_qk_problem* problem, uint16_t* q_out, uint16_t* k_out, float* q_mean,
                          float* q_rstd, float* k_mean, float* k_rstd);

/* The valid variants at this head_dim, one name per line. */
int exactune_qk_list_variants(int32_t head_dim, char* names, size_t capacity);

/* One fused variant by name into q_out and k_out (neither NULL); every variant
 * of the head_dim is compiled through the on-disk cache on the first use of
 * that head_dim. */
int exactune_qk_run_variant(const exactune_qk_problem* problem, const char* variant, uint16_t* q_out, uint16_t* k_out);

#ifdef __cplusplus
}
#endif
#endif
