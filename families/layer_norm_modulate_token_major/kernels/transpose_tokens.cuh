// x.contiguous() of a token-major activation: x is (B, N, C) logically and
// (B, C, N) in memory; y is the contiguous (B, N, C) copy that aten's LayerNorm
// and the contiguous family's kernels read. The reference chain and the copy
// variants run it; a copy moves bits, so any correct copy is aten's copy.
// Tiles of 32 x 32 elements through shared memory, so that both the read
// (along N) and the write (along C) are coalesced; the odd row length of the
// tile keeps the column read free of bank conflicts.
#pragma once
#include "kernel_templates/arith.cuh"

namespace exactune_kernels {

constexpr int kTransposeTile = 32;
constexpr int kTransposeRowsPerPass = 8;  // blockDim = (32, 8)

__global__ void __launch_bounds__(kTransposeTile* kTransposeRowsPerPass)
    transpose_tokens(const bf16_bits* __restrict__ x, bf16_bits* __restrict__ y, int channels, int tokens) {
  __shared__ bf16_bits tile[kTransposeTile][kTransposeTile + 1];
  const long long batch_offset = static_cast<long long>(blockIdx.z) * channels * tokens;
  const int n0 = blockIdx.x * kTransposeTile;
  const int c0 = blockIdx.y * kTransposeTile;
  for (int i = threadIdx.y; i < kTransposeTile; i += kTransposeRowsPerPass) {
    const int c = c0 + i;
    const int n = n0 + threadIdx.x;
    if (c < channels && n < tokens) tile[i][threadIdx.x] = x[batch_offset + static_cast<long long>(c) * tokens + n];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < kTransposeTile; i += kTransposeRowsPerPass) {
    const int n = n0 + i;
    const int c = c0 + threadIdx.x;
    if (c < channels && n < tokens) y[batch_offset + static_cast<long long>(n) * channels + c] = tile[threadIdx.x][i];
  }
}

}  // namespace exactune_kernels
