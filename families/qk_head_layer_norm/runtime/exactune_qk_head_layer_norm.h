/* The runtime entry of the qk_head_layer_norm family: q_out and k_out = the
 * bits of PyTorch 2.11's F.layer_norm(q, (head_dim,), eps=eps) and the same for
 * k, in bf16, both in the launch the tables chose for this GPU, on the caller's
 * stream. Returns an exactune_status (exactune/runtime.h). */
#ifndef EXACTUNE_QK_HEAD_LAYER_NORM_H
#define EXACTUNE_QK_HEAD_LAYER_NORM_H
#include <exactune/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* q, k, q_out and k_out are (batch, tokens, heads, head_dim) bf16 on `device`;
 * strides count elements. Served: head_dim % 4 == 0 and head_dim <= 128; q and
 * k contiguous and 8-byte aligned (aten's vectorized LayerNorm); outputs
 * contiguous and 8-byte aligned. A problem of no rows launches nothing and
 * succeeds. */
typedef struct exactune_qk_head_layer_norm_args {
  int32_t device;
  void* stream; /* a CUstream / cudaStream_t of that device; NULL: the legacy default stream */
  const void* q;
  const void* k;
  void* q_out;
  void* k_out;
  int64_t batch;
  int64_t tokens;
  int64_t heads;
  int64_t head_dim;
  int64_t q_strides[4];
  int64_t k_strides[4];
  double eps;
} exactune_qk_head_layer_norm_args;

int exactune_qk_head_layer_norm(const exactune_qk_head_layer_norm_args* args);

/* As exactune_layer_norm_modulate_last_variant: "<variant> (<step>)". */
const char* exactune_qk_head_layer_norm_last_variant(void);

#ifdef __cplusplus
}
#endif
#endif
