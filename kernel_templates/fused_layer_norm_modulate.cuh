// The fused kernel: out = bf16 chain of LN(x) * (1 + scale) + shift, in one pass
// over x, with aten's exact arithmetic order. One template, one instantiation
// per variant; the hidden size is a compile-time constant.
//
// How aten's order survives a different launch shape. aten gives every row 128
// "virtual lanes"; lane l pushes the row's 4-element vectors l, l + 128, ... and
// the lanes reduce in a fixed tree. Here a row is served by kThreadsPerRow = 32,
// 64 or 128 physical threads. Physical thread p loads kVecLanes adjacent aten
// vectors per chunk (8 or 16 bytes), chunk j covering vectors
//   j * kChunkVectors + p * kVecLanes + e,   e < kVecLanes,
// so every load is coalesced, and keeps one Welford state per virtual lane it
// stands in for: lanes[m][e] is lane (m * kChunkVectors + p * kVecLanes + e), and
// chunk j feeds group m = j % kLaneGroups. The warp tree's offset o becomes a
// shuffle by o / kVecLanes, or a combine inside the thread when o < kVecLanes.
// Each virtual warp's total goes to shared memory and every thread combines the
// four in aten's order.
//
// Axes (see harness/layer_norm_modulate_family.cpp for their constraints):
//   NumWarps, RowsPerCta  the CTA shape; kThreadsPerRow = 32 * NumWarps / RowsPerCta
//   VecLanes              aten vectors per load: 1 (8-byte loads) or 2 (16-byte)
//   Tail                  tail_predicated: every chunk's load is guarded;
//                         tail_peeled: full chunks unguarded, the one partial chunk
//                         resolved at compile time
//   Source                pass2_reload: pass 2 re-reads x; pass2_registers: the
//                         row stays in registers between the two passes
//   Counts                counts_runtime: each push computes 1/count (__frcp_rn);
//                         counts_folded: counts are compile-time constants, so
//                         the reciprocals fold away (same bits, fewer instructions)
//   Modulation            modulation_late: scale and shift are loaded in pass 2;
//                         modulation_early: loaded with x in pass 1 and held, so
//                         their round trip overlaps the statistics' reduction
//                         instead of following its barrier
#pragma once
#include "arith.cuh"

namespace exactune_kernels {

enum tail_strategy { tail_predicated = 0, tail_peeled = 1 };
enum pass2_source { pass2_reload = 0, pass2_registers = 1 };
enum count_mode { counts_runtime = 0, counts_folded = 1 };
enum modulation_load { modulation_late = 0, modulation_early = 1 };

template <int VecLanes> struct packet;
template <> struct packet<1> {
  uint2 v;
  __device__ __forceinline__ unsigned int word(int i) const { return i == 0 ? v.x : v.y; }
  __device__ __forceinline__ void set_word(int i, unsigned int w) { if (i == 0) v.x = w; else v.y = w; }
};
template <> struct packet<2> {
  uint4 v;
  __device__ __forceinline__ unsigned int word(int i) const {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
  }
  __device__ __forceinline__ void set_word(int i, unsigned int w) {
    if (i == 0) v.x = w; else if (i == 1) v.y = w; else if (i == 2) v.z = w; else v.w = w;
  }
};

template <int VecLanes>
__device__ __forceinline__ packet<VecLanes> load_packet(const bf16_bits* p) {
  packet<VecLanes> r;
  r.v = *reinterpret_cast<const decltype(r.v)*>(p);
  return r;
}

template <int VecLanes>
__device__ __forceinline__ void store_packet(bf16_bits* p, const packet<VecLanes>& r) {
  *reinterpret_cast<decltype(r.v)*>(p) = r.v;
}

// No __launch_bounds__: with one, ptxas trades registers for occupancy and
// spills (w2_r2 at D3072 spilled 4 bytes at 72 registers on sm_90).
template <int Hidden, int NumWarps, int RowsPerCta, int VecLanes, int Tail, int Source, int Counts, int Modulation>
__global__ void fused_layer_norm_modulate(const bf16_bits* __restrict__ x, const bf16_bits* __restrict__ scale,
                          const bf16_bits* __restrict__ shift, bf16_bits* __restrict__ out,
                          int rows, int tokens_per_batch, long long modulation_stride, float eps) {
  constexpr int kAtenLanes = 128;
  constexpr int kThreadsPerRow = NumWarps * 32 / RowsPerCta;
  constexpr int kChunkVectors = kThreadsPerRow * VecLanes;
  constexpr int kLaneGroups = kAtenLanes / kChunkVectors;
  constexpr int kRowVectors = Hidden / 4;
  constexpr int kFullChunks = kRowVectors / kChunkVectors;
  constexpr int kChunks = (kRowVectors + kChunkVectors - 1) / kChunkVectors;
  constexpr int kWords = 2 * VecLanes;
  static_assert(Hidden % 4 == 0, "aten's vectorized kernel needs hidden % 4 == 0");
  static_assert(kThreadsPerRow >= 32 && kAtenLanes % kThreadsPerRow == 0,
                "a row is served by 32, 64 or 128 threads");
  static_assert(kLaneGroups >= 1, "a chunk may not span more than aten's 128 lanes");

  const int row_in_cta = threadIdx.x / kThreadsPerRow;
  const int p = threadIdx.x % kThreadsPerRow;
  const int row = blockIdx.x * RowsPerCta + row_in_cta;
  const bool row_valid = row < rows;
  // A CTA's surplus rows compute the last row again and store nothing, so that
  // the loads need no row guard and every thread reaches every shuffle and barrier.
  const long long safe_row = row_valid ? row : rows - 1;
  const bf16_bits* row_x = x + safe_row * Hidden;

  welford_state lanes[kLaneGroups][VecLanes];
#pragma unroll
  for (int m = 0; m < kLaneGroups; ++m)
#pragma unroll
    for (int e = 0; e < VecLanes; ++e) lanes[m][e] = welford_state{0.0f, 0.0f, 0.0f};

  packet<VecLanes> held[Source == pass2_registers ? kChunks : 1];
  constexpr int kEarlyChunks = Modulation == modulation_early ? kChunks : 1;
  packet<VecLanes> early_scale[kEarlyChunks], early_shift[kEarlyChunks];
  const long long batch = safe_row / tokens_per_batch;
  const bf16_bits* row_scale = scale + batch * modulation_stride;
  const bf16_bits* row_shift = shift + batch * modulation_stride;

#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
    const int vector = j * kChunkVectors + p * VecLanes;
    const bool in_row = (Tail == tail_peeled && j < kFullChunks) || vector < kRowVectors;
    if (in_row) {
      const packet<VecLanes> data = load_packet<VecLanes>(row_x + vector * 4);
      if (Source == pass2_registers) held[j] = data;
      if (Modulation == modulation_early) {
        early_scale[j] = load_packet<VecLanes>(row_scale + vector * 4);
        early_shift[j] = load_packet<VecLanes>(row_shift + vector * 4);
      }
#pragma unroll
      for (int e = 0; e < VecLanes; ++e) {
        welford_state& lane = lanes[j % kLaneGroups][e];
        const float values[4] = {low_half(data.word(2 * e)), high_half(data.word(2 * e)),
                                 low_half(data.word(2 * e + 1)), high_half(data.word(2 * e + 1))};
        const int pushed_before = (j / kLaneGroups) * 4;  // in this lane's earlier chunks
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if (Counts == counts_folded) {
            welford_push_counted(lane, values[k], pushed_before + k);
          } else {
            welford_push(lane, values[k]);
          }
        }
      }
    }
  }

#pragma unroll
  for (int level = 0; level < 5; ++level) {
    const int offset = warp_tree_offset(level);
    if (offset >= VecLanes) {
#pragma unroll
      for (int m = 0; m < kLaneGroups; ++m)
#pragma unroll
        for (int e = 0; e < VecLanes; ++e)
          lanes[m][e] = welford_combine(lanes[m][e], shfl_down_state(lanes[m][e], offset / VecLanes));
    } else {
#pragma unroll
      for (int m = 0; m < kLaneGroups; ++m)
        lanes[m][0] = welford_combine(lanes[m][0], lanes[m][offset]);
    }
  }

  __shared__ welford_state warp_totals[RowsPerCta][4];
#pragma unroll
  for (int m = 0; m < kLaneGroups; ++m) {
    const int virtual_lane = m * kChunkVectors + p * VecLanes;
    if (virtual_lane % 32 == 0) warp_totals[row_in_cta][virtual_lane / 32] = lanes[m][0];
  }
  __syncthreads();
  const row_stats stats = finalize_stats(combine_four_warps(warp_totals[row_in_cta]), Hidden, eps);

  bf16_bits* row_out = out + safe_row * Hidden;
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
    const int vector = j * kChunkVectors + p * VecLanes;
    const bool in_row = (Tail == tail_peeled && j < kFullChunks) || vector < kRowVectors;
    if (in_row) {
      const packet<VecLanes> data =
          Source == pass2_registers ? held[j] : load_packet<VecLanes>(row_x + vector * 4);
      const packet<VecLanes> sc =
          Modulation == modulation_early ? early_scale[j] : load_packet<VecLanes>(row_scale + vector * 4);
      const packet<VecLanes> sh =
          Modulation == modulation_early ? early_shift[j] : load_packet<VecLanes>(row_shift + vector * 4);
      packet<VecLanes> result;
#pragma unroll
      for (int w = 0; w < kWords; ++w) {
        const unsigned int xw = data.word(w), cw = sc.word(w), hw = sh.word(w);
        result.set_word(w, pack_bf16x2(
            modulated_layer_norm(low_half(xw), stats, low_bits(cw), low_bits(hw)),
            modulated_layer_norm(high_half(xw), stats, high_bits(cw), high_bits(hw))));
      }
      if (row_valid) store_packet<VecLanes>(row_out + vector * 4, result);
    }
  }
}

}  // namespace exactune_kernels
