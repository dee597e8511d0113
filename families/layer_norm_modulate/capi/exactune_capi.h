/* exactune's C ABI: the reference and the fused variants of the LayerNorm +
 * modulate family on the GPU, for callers outside C++ (tests/torch loads it with
 * ctypes to check exactune against real PyTorch). Buffers are host memory; bf16
 * values travel as their uint16 bits. Every function returns an exactune_status
 * (exactune/runtime.h): EXACTUNE_OK; EXACTUNE_NOT_SERVED for a problem the
 * family does not serve (a hidden size aten runs through another kernel, more
 * rows than a kernel counts); EXACTUNE_INVALID_ARGUMENT for arguments that
 * describe no problem (a NULL pointer, a count below one, an embedding_elements
 * that is not batch * modulation_stride); EXACTUNE_ERROR when the GPU or the
 * compiler fails. The reason, naming the argument, is in exactune_last_error().
 * Arguments are checked before anything is compiled, loaded or copied. */
#ifndef EXACTUNE_CAPI_H
#define EXACTUNE_CAPI_H
#include <exactune/runtime.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The problem: x is (batch, tokens, hidden); scale and shift are rows of
 * `embedding`, batch b's at embedding + b * modulation_stride + {scale,shift}_offset.
 * modulation_stride is a multiple of hidden, each offset at most
 * modulation_stride - hidden, and embedding_elements = batch * modulation_stride. */
typedef struct exactune_problem {
  const uint16_t* x;
  const uint16_t* embedding;
  int64_t embedding_elements;
  int64_t scale_offset;
  int64_t shift_offset;
  int64_t modulation_stride;
  int32_t batch;
  int32_t tokens;
  int32_t hidden;
  double eps;
} exactune_problem;

const char* exactune_last_error(void);

/* The GPU in words, e.g. "NVIDIA H200 (sm_90, 132 SMs, ...)". */
int exactune_describe_gpu(char* text, size_t capacity);

/* The reference chain: out (rows * hidden), the LayerNorm output y, and aten's
 * mean and rstd per row (any output may be NULL). */
int exactune_reference(const exactune_problem* problem, uint16_t* out, uint16_t* y, float* mean, float* rstd);

/* The valid variants at this hidden size, one name per line. */
int exactune_list_variants(int32_t hidden, char* names, size_t capacity);

/* One fused variant by name into out (rows * hidden; not NULL), compiled
 * through the on-disk cache on first use. */
int exactune_run_variant(const exactune_problem* problem, const char* variant, uint16_t* out);

#ifdef __cplusplus
}
#endif
#endif
