// The rest of PyTorch's eager adaLN chain after F.layer_norm: three separate
// elementwise kernels, each rounding its result to bf16, exactly as
//   out = y * (1 + scale) + shift
// runs in eager mode. Rows are flattened as b * tokens + s; scale and shift are
// rows of a (B, k, D) embedding, row b at b * modulation_stride elements.
#pragma once
#include "modulate_chain.cuh"

namespace exactune_kernels {

// t[b, c] = bf16(scale[b, c] + 1), materialised as a contiguous (B, D) tensor.
__global__ void eager_one_plus(const bf16_bits* __restrict__ scale, bf16_bits* __restrict__ t, int batches, int hidden,
                               long long modulation_stride) {
  const long long n = static_cast<long long>(batches) * hidden;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long b = i / hidden;
    const long long c = i - b * hidden;
    t[i] = one_plus(scale[b * modulation_stride + c]);
  }
}

// u = bf16(y * t), t broadcast over the tokens of its batch.
__global__ void eager_scale(const bf16_bits* __restrict__ y, const bf16_bits* __restrict__ t, bf16_bits* __restrict__ u,
                            long long rows, int tokens_per_batch, int hidden) {
  const long long n = rows * hidden;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = i / hidden;
    const long long c = i - row * hidden;
    const long long b = row / tokens_per_batch;
    u[i] = scaled(y[i], t[b * hidden + c]);
  }
}

// out = bf16(u + shift), shift broadcast over the tokens of its batch.
__global__ void eager_shift(const bf16_bits* __restrict__ u, const bf16_bits* __restrict__ shift,
                            bf16_bits* __restrict__ out, long long rows, int tokens_per_batch, int hidden,
                            long long modulation_stride) {
  const long long n = rows * hidden;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = i / hidden;
    const long long c = i - row * hidden;
    const long long b = row / tokens_per_batch;
    out[i] = shifted(u[i], shift[b * modulation_stride + c]);
  }
}

}  // namespace exactune_kernels
