/* The runtime entry of the layer_norm_modulate family: out = the bits of
 * PyTorch 2.11's eager chain
 *     F.layer_norm(x, (hidden,), eps=eps) * (1 + scale) + shift
 * in bf16, computed by the variant the tables chose for this GPU, launched on
 * the caller's stream. Returns an exactune_status (exactune/runtime.h). */
#ifndef EXACTUNE_LAYER_NORM_MODULATE_H
#define EXACTUNE_LAYER_NORM_MODULATE_H
#include <exactune/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Pointers are device addresses on `device`; strides count elements. A chunk
 * of a (batch, k * hidden) adaLN projection is a scale or shift pointer at the
 * chunk's offset with row stride k * hidden. Served: hidden % 4 == 0 and
 * hidden <= 8192; x contiguous (strides tokens*hidden, hidden, 1, as aten's
 * LayerNorm sees it) and 8-byte aligned; scale and shift rows contiguous, with
 * one row stride for both (0 when every batch shares one row) and 8-byte
 * aligned; out contiguous and 8-byte aligned. batch * tokens == 0 launches
 * nothing and succeeds. Per-token modulation (scale and shift (B, S, hidden),
 * a row per token, row stride r) is batch = B * S, tokens = 1, x_strides
 * (hidden, hidden, 1) and row stride r: a batch element per token. */
typedef struct exactune_layer_norm_modulate_args {
  int32_t device;    /* CUDA device ordinal */
  void* stream;      /* a CUstream / cudaStream_t of that device; NULL: the legacy default stream */
  const void* x;     /* bf16 (batch, tokens, hidden) */
  const void* scale; /* bf16: batch b's row at scale + b * scale_row_stride */
  const void* shift; /* bf16: batch b's row at shift + b * shift_row_stride */
  void* out;         /* bf16 (batch, tokens, hidden), contiguous */
  int64_t batch;
  int64_t tokens;
  int64_t hidden;
  int64_t x_strides[3];
  int64_t scale_row_stride;
  int64_t shift_row_stride;
  double eps;
} exactune_layer_norm_modulate_args;

int exactune_layer_norm_modulate(const exactune_layer_norm_modulate_args* args);

/* The variant the last successful call on this thread launched, and the step
 * of the fallback chain that chose it ("tuned bucket", ...), as
 * "<variant> (<step>)". */
const char* exactune_layer_norm_modulate_last_variant(void);

#ifdef __cplusplus
}
#endif
#endif
