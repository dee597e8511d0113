// PyTorch's eager gated residual, x + gate * h, as the two separate elementwise
// kernels aten runs, each rounding its result to bf16: the reference's first
// steps. The LayerNorm and modulate chain then run on the rounded r, as
// layer_norm_modulate's reference does (kernels/eager_chain.cuh there). Rows are
// flattened as b * tokens + s; gate is a row of a (B, k, D) embedding, batch b's
// at b * modulation_stride elements, broadcast over the tokens of its batch.
#pragma once
#include "gated_residual.cuh"

namespace exactune_kernels {

// p = bf16(gate * h), materialised as a (rows, hidden) tensor.
__global__ void eager_gate_product(const bf16_bits* __restrict__ gate, const bf16_bits* __restrict__ h,
                                   bf16_bits* __restrict__ p, long long rows, int tokens_per_batch, int hidden,
                                   long long modulation_stride) {
  const long long n = rows * hidden;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = i / hidden;
    const long long c = i - row * hidden;
    const long long b = row / tokens_per_batch;
    p[i] = gate_product(gate[b * modulation_stride + c], h[i]);
  }
}

// r = bf16(x + p), alpha 1.
__global__ void eager_residual_add(const bf16_bits* __restrict__ x, const bf16_bits* __restrict__ p,
                                   bf16_bits* __restrict__ r, long long elements) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < elements;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    r[i] = residual_sum(x[i], p[i]);
  }
}

}  // namespace exactune_kernels
