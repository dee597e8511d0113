// The aten replica: torch 2.11's vectorized LayerNorm forward for bf16 without
// weight or bias, written the way aten runs it so that its bits are aten's bits.
// One block per row, block (32, 4): 128 threads, thread t = x + 32 * y. Each
// thread pushes the 4-element vectors t, t + 128, ... of the row into its own
// Welford state, the warp reduces with a shuffle tree, the four warps combine
// through shared memory (w0 <- w2 and w1 <- w3, then w0 <- w1), and the second
// pass re-reads x. The recipe is versioned (KernelFamily::reference_recipe,
// "aten-2.11-cu130-vectorized-layer-norm-v4x128"): a newer aten that changes it needs a
// new reference, checked against real torch (tests/torch).
#pragma once
#include "kernel_templates/arith.cuh"

namespace exactune_kernels {

__global__ void __launch_bounds__(128)
    aten_layer_norm(const bf16_bits* __restrict__ x, bf16_bits* __restrict__ y, float* __restrict__ mean_out,
                    float* __restrict__ rstd_out, int row_length, float epsilon) {
  constexpr int kVec = 4;
  const int t = threadIdx.x + blockDim.x * threadIdx.y;
  const int threads = blockDim.x * blockDim.y;
  const int row_vectors = row_length / kVec;
  const bf16_bits* row_x = x + static_cast<long long>(blockIdx.x) * row_length;

  welford_state s = {0.0f, 0.0f, 0.0f};
  for (int v = t; v < row_vectors; v += threads) {
    const uint2 packet = *reinterpret_cast<const uint2*>(row_x + v * kVec);
    welford_push(s, low_half(packet.x));
    welford_push(s, high_half(packet.x));
    welford_push(s, low_half(packet.y));
    welford_push(s, high_half(packet.y));
  }

  for (int level = 0; level < 5; ++level) {
    s = welford_combine(s, shfl_down_state(s, warp_tree_offset(level)));
  }

  // aten's cross-warp step: the upper half of the warps hands its totals to the
  // lower half, halving until warp 0 holds the row's total.
  __shared__ welford_state handed[2];
  __shared__ row_stats stats;
  for (unsigned half = blockDim.y / 2; half > 0; half /= 2) {
    if (threadIdx.x == 0 && threadIdx.y >= half && threadIdx.y < 2 * half) {
      handed[threadIdx.y - half] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y < half) {
      s = welford_combine(s, handed[threadIdx.y]);
    }
    __syncthreads();
  }
  if (t == 0) {
    stats = finalize_stats(s, row_length, epsilon);
    mean_out[blockIdx.x] = stats.mean;
    rstd_out[blockIdx.x] = stats.rstd;
  }
  __syncthreads();
  const row_stats row = stats;

  bf16_bits* row_y = y + static_cast<long long>(blockIdx.x) * row_length;
  for (int v = t; v < row_vectors; v += threads) {
    const uint2 packet = *reinterpret_cast<const uint2*>(row_x + v * kVec);
    uint2 result;
    result.x = pack_bf16x2(layer_norm_value(low_half(packet.x), row), layer_norm_value(high_half(packet.x), row));
    result.y = pack_bf16x2(layer_norm_value(low_half(packet.y), row), layer_norm_value(high_half(packet.y), row));
    *reinterpret_cast<uint2*>(row_y + v * kVec) = result;
  }
}

}  // namespace exactune_kernels
