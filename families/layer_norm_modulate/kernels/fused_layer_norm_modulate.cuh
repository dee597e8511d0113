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
// Axes (see layer_norm_modulate_family.cpp for their constraints):
//   NumWarps, RowsPerCta  the CTA shape; kThreadsPerRow = 32 * NumWarps / RowsPerCta
//   VecLanes              aten vectors per load: 1 (8-byte loads) or 2 (16-byte)
//   Tail                  tail_predicated: every chunk's load is guarded;
//                         tail_peeled: full chunks unguarded, the one partial chunk
//                         resolved at compile time
//   Source                pass2_reload: pass 2 re-reads x; pass2_registers: the
//                         row stays in registers between the two passes
//   Counts                counts_runtime: each push and combine computes 1/count
//                         (__frcp_rn) from counts carried with the data;
//                         counts_folded: every count follows from the lane and
//                         the hidden size, so the pushes' reciprocals fold to
//                         constants and the combines' weights are computed apart
//                         from the data, off the critical path (same bits)
//   Modulation            modulation_late: scale and shift are loaded in pass 2;
//                         modulation_early: loaded with x in pass 1 and held, so
//                         their round trip overlaps the statistics' reduction
//                         instead of following its barrier
//   Elementwise           elementwise_float32: the chain after the statistics
//                         one float32 step and one bf16 rounding at a time;
//                         elementwise_bf16x2: its three bf16 steps as packed
//                         bf16x2 instructions that round once (same bits, see
//                         arith.cuh)
//   Grid                  grid_full: one CTA per group of RowsPerCta rows;
//                         grid_persistent: as many CTAs as the GPU holds at
//                         once (the launcher sizes the grid), each looping over
//                         row groups and loading the next group's x while it
//                         reduces and writes the current one (pass2_registers)
//
// Where a row's values come from is the kernel's one hook (a row source, below):
// this family reads x as it lies in memory; a family that builds on this
// kernel computes its row as it loads it (families/
// gated_residual_layer_norm_modulate: the residual x + gate * h, written out
// once) and runs the rest of this template unchanged.
#pragma once
#include "kernel_templates/packet.cuh"
#include "kernel_templates/planted_crash.cuh"
#include "kernel_templates/planted_slowdown.cuh"
#include "modulate_chain.cuh"

namespace exactune_kernels {

enum tail_strategy { tail_predicated = 0, tail_peeled = 1 };
enum pass2_source { pass2_reload = 0, pass2_registers = 1 };
enum count_mode { counts_runtime = 0, counts_folded = 1 };
enum modulation_load { modulation_late = 0, modulation_early = 1 };
enum elementwise_form { elementwise_float32 = 0, elementwise_bf16x2 = 1 };
enum grid_form { grid_full = 0, grid_persistent = 1 };

// Values pushed, over a row of RowVectors 4-element vectors, by the n aten lanes
// lane, lane + stride, ..., lane + (n - 1) * stride: aten's lane l pushes four
// values for each of its vectors l, l + 128, ...
template <int RowVectors>
__device__ __forceinline__ float pushed_by_lanes(int lane, int stride, int n) {
  constexpr int kFullRounds = RowVectors / 128;
  constexpr int kTailLanes = RowVectors % 128;
  const int in_tail = lane >= kTailLanes ? 0 : (kTailLanes - lane + stride - 1) / stride;
  return static_cast<float>(4 * (n * kFullRounds + (in_tail < n ? in_tail : n)));
}

// Values behind aten lane `lane`'s state before warp-tree level `level`: the
// lanes its earlier levels gathered, an arithmetic run of 2^level lanes whose
// step is the smallest offset walked so far (for any tree of halving offsets).
template <int RowVectors>
__device__ __forceinline__ float tree_node_count(int lane, int level) {
  int stride = 32;
  for (int earlier = 0; earlier < level; ++earlier) {
    const int offset = warp_tree_offset(earlier);
    stride = offset < stride ? offset : stride;
  }
  return pushed_by_lanes<RowVectors>(lane, stride, 1 << level);
}

// The scale or shift row of a token: rows are flattened as batch * tokens + token.
__device__ __forceinline__ const bf16_bits* modulation_row(const bf16_bits* base, long long row, int tokens_per_batch,
                                                           long long modulation_stride) {
  return base + static_cast<long long>(static_cast<int>(row) / tokens_per_batch) * modulation_stride;
}

// Pass 2's read of x in reload variants. A plain load would not do: x is const
// __restrict__, so the compiler merges it with pass 1's load and holds the row in
// registers, which makes reload the same kernel as registers. A volatile load
// is issued where it is written.
template <int VecLanes>
__device__ __forceinline__ packet<VecLanes> reload_packet(const bf16_bits* p) {
#if defined(__CUDA_ARCH__)
  packet<VecLanes> r;
  if constexpr (VecLanes == 1) {
    asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(r.v.x), "=r"(r.v.y) : "l"(p));
  } else {
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.v.x), "=r"(r.v.y), "=r"(r.v.z), "=r"(r.v.w)
                 : "l"(p));
  }
  return r;
#else
  return load_packet<VecLanes>(p);
#endif
}

// The row source of this family: x as it lies in memory. A row source gives
//   load<VecLanes>(row, column, stored)  pass 1's read of the packet at (row, column);
//                                        `stored` is false for a CTA's surplus rows,
//                                        which compute the last row again and store nothing
//   reload<VecLanes>(row, column)        pass 2's read of it in reload variants
// Both return the bf16 values the LayerNorm normalises.
template <int Hidden>
struct row_in_memory {
  const bf16_bits* __restrict__ x;

  template <int VecLanes>
  __device__ __forceinline__ packet<VecLanes> load(long long row, int column, bool) const {
    return load_packet<VecLanes>(x + row * Hidden + column);
  }
  template <int VecLanes>
  __device__ __forceinline__ packet<VecLanes> reload(long long row, int column) const {
    return reload_packet<VecLanes>(x + row * Hidden + column);
  }
};

// One row's work, cut into the steps both grid forms share. Physical thread p
// of a row handles chunk j's vectors vector(j, p) .. + VecLanes - 1.
template <int Hidden, int NumWarps, int RowsPerCta, int VecLanes, int Tail, int Source, int Counts, int Modulation,
          int Elementwise>
struct fused_row {
  static constexpr int kAtenLanes = 128;
  static constexpr int kThreadsPerRow = NumWarps * 32 / RowsPerCta;
  static constexpr int kChunkVectors = kThreadsPerRow * VecLanes;
  static constexpr int kLaneGroups = kAtenLanes / kChunkVectors;
  static constexpr int kRowVectors = Hidden / 4;
  static constexpr int kFullChunks = kRowVectors / kChunkVectors;
  static constexpr int kChunks = (kRowVectors + kChunkVectors - 1) / kChunkVectors;
  static constexpr int kWords = 2 * VecLanes;
  static constexpr bool kFoldedCounts = Counts == counts_folded;
  static constexpr bool kEarly = Modulation == modulation_early;
  static_assert(Hidden % 4 == 0, "aten's vectorized kernel needs hidden % 4 == 0");
  static_assert(kThreadsPerRow >= 32 && kAtenLanes % kThreadsPerRow == 0, "a row is served by 32, 64 or 128 threads");
  static_assert(kLaneGroups >= 1, "a chunk may not span more than aten's 128 lanes");

  typedef packet<VecLanes> chunk;
  typedef welford_state lane_states[kLaneGroups][VecLanes];
  typedef chunk row_chunks[kChunks];

  __device__ static int vector(int j, int p) { return j * kChunkVectors + p * VecLanes; }
  __device__ static bool in_row(int j, int p) {
    return (Tail == tail_peeled && j < kFullChunks) || vector(j, p) < kRowVectors;
  }

  template <class RowSource>
  __device__ static void load(row_chunks& into, const RowSource& source, long long row, bool stored, int p) {
#pragma unroll
    for (int j = 0; j < kChunks; ++j)
      if (in_row(j, p)) into[j] = source.template load<VecLanes>(row, vector(j, p) * 4, stored);
  }

  __device__ static void start(lane_states& lanes) {
#pragma unroll
    for (int m = 0; m < kLaneGroups; ++m)
#pragma unroll
      for (int e = 0; e < VecLanes; ++e) lanes[m][e] = welford_state{0.0f, 0.0f, 0.0f};
  }

  // Pass 1 for chunk j: its values go to the lanes of group j % kLaneGroups.
  // Planted faults (tests only): 5 sends chunk j to group j + 1, which only a
  // variant with several lane groups can show; 6 counts one value more before
  // each push, which only a variant with folded counts can show.
  __device__ static void push(lane_states& lanes, const chunk& data, int j) {
#pragma unroll
    for (int e = 0; e < VecLanes; ++e) {
      welford_state& lane = lanes[(j + (EXACTUNE_PLANTED_FAULT == 5 ? 1 : 0)) % kLaneGroups][e];
      const float values[4] = {low_half(data.word(2 * e)), high_half(data.word(2 * e)), low_half(data.word(2 * e + 1)),
                               high_half(data.word(2 * e + 1))};
      const int pushed_before = (j / kLaneGroups) * 4;  // in this lane's earlier chunks
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if (kFoldedCounts) {
          welford_push_counted(lane, values[k], pushed_before + k + (EXACTUNE_PLANTED_FAULT == 6 ? 1 : 0));
        } else {
          welford_push(lane, values[k]);
        }
      }
    }
  }

  // The warp trees, then the four warp totals through shared memory (one
  // barrier, which every thread of the CTA reaches), in aten's order.
  __device__ static row_stats reduce(lane_states& lanes, int p, welford_state (&warp_totals)[4], float eps) {
#pragma unroll
    for (int level = 0; level < 5; ++level) {
      const int offset = warp_tree_offset(level);
      if (offset >= VecLanes) {
#pragma unroll
        for (int m = 0; m < kLaneGroups; ++m)
#pragma unroll
          for (int e = 0; e < VecLanes; ++e) {
            welford_state& lane = lanes[m][e];
            const int aten_lane = m * kChunkVectors + p * VecLanes + e;
            const welford_state partner =
                kFoldedCounts ? shfl_down_moments(lane, offset / VecLanes,
                                                  tree_node_count<kRowVectors>(aten_lane + offset, level))
                              : shfl_down_state(lane, offset / VecLanes);
            lane = welford_combine(lane, partner);
          }
      } else {
#pragma unroll
        for (int m = 0; m < kLaneGroups; ++m) lanes[m][0] = welford_combine(lanes[m][0], lanes[m][offset]);
      }
    }
#pragma unroll
    for (int m = 0; m < kLaneGroups; ++m) {
      const int virtual_lane = m * kChunkVectors + p * VecLanes;
      // Planted fault 7 (tests only): each warp's total in the next warp's slot.
      const int slot = (virtual_lane / 32 + (EXACTUNE_PLANTED_FAULT == 7 ? 1 : 0)) % 4;
      if (virtual_lane % 32 == 0) warp_totals[slot] = lanes[m][0];
    }
    __syncthreads();
    welford_state totals[4];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      totals[w] = warp_totals[w];
      if (kFoldedCounts) totals[w].count = pushed_by_lanes<kRowVectors>(32 * w, 1, 32);
    }
    return finalize_stats(combine_four_warps(totals), Hidden, eps);
  }

  __device__ static unsigned int modulate(unsigned int x, const row_stats& stats, unsigned int scale,
                                          unsigned int shift) {
    return Elementwise == elementwise_bf16x2 ? modulated_layer_norm_bf16x2(x, stats, scale, shift)
                                             : modulated_layer_norm_float32(x, stats, scale, shift);
  }
};

// The fused kernel's body over the rows of `source` (see row_in_memory); every
// family that builds on this template launches a kernel that calls it.
template <int Hidden, int NumWarps, int RowsPerCta, int VecLanes, int Tail, int Source, int Counts, int Modulation,
          int Elementwise, int Grid, class RowSource>
__device__ __forceinline__ void fused_layer_norm_modulate_rows(
    const RowSource& source, const bf16_bits* __restrict__ scale, const bf16_bits* __restrict__ shift,
    bf16_bits* __restrict__ out, int rows, int tokens_per_batch, long long modulation_stride, float eps) {
  planted_crash();                         // nothing unless a test plants a crash
  const PlantedSlowdown planted_slowdown;  // nothing unless the gate's power test plants a slowdown
  typedef fused_row<Hidden, NumWarps, RowsPerCta, VecLanes, Tail, Source, Counts, Modulation, Elementwise> plan;
  static_assert(Grid == grid_full || Source == pass2_registers,
                "a persistent CTA holds the current row in registers while the next one loads");
  constexpr bool kPersistent = Grid == grid_persistent;
  constexpr int kHeldChunks = Source == pass2_registers ? plan::kChunks : 1;
  constexpr int kEarlyChunks = plan::kEarly ? plan::kChunks : 1;

  const int row_in_cta = threadIdx.x / plan::kThreadsPerRow;
  const int p = threadIdx.x % plan::kThreadsPerRow;
  const int groups = (rows + RowsPerCta - 1) / RowsPerCta;
  // A CTA's surplus rows compute the last row again and store nothing, so that
  // the loads need no row guard and every thread reaches every shuffle and barrier.
  auto safe_row = [&](int group) -> long long {
    const int row = group * RowsPerCta + row_in_cta;
    return row < rows ? row : rows - 1;
  };
  auto row_exists = [&](int group) { return group * RowsPerCta + row_in_cta < rows; };

  // Two sets of warp totals in a persistent CTA: a fast thread writing the next
  // row's totals cannot overwrite ones a slow thread has still to read, since
  // it has passed one more barrier.
  __shared__ welford_state warp_totals[kPersistent ? 2 : 1][RowsPerCta][4];
  typename plan::chunk held[kHeldChunks];
  typename plan::chunk next[kPersistent ? plan::kChunks : 1];
  if constexpr (kPersistent) {
    if (blockIdx.x < groups) plan::load(next, source, safe_row(blockIdx.x), row_exists(blockIdx.x), p);
  }

  // One row group: pass 1, the reduction, pass 2. `parity` picks the warp totals.
  auto process = [&](int group, int parity) {
    const long long row = safe_row(group);
    const bool row_valid = row_exists(group);
    typename plan::lane_states lanes;
    plan::start(lanes);
    // Late variants find their scale and shift rows after the barrier, so that
    // nothing of them is live across the reduction.
    const bf16_bits* early_scale_row =
        plan::kEarly ? modulation_row(scale, row, tokens_per_batch, modulation_stride) : nullptr;
    const bf16_bits* early_shift_row =
        plan::kEarly ? modulation_row(shift, row, tokens_per_batch, modulation_stride) : nullptr;
    typename plan::chunk early_scale[kEarlyChunks], early_shift[kEarlyChunks];

    if constexpr (kPersistent) {
#pragma unroll
      for (int j = 0; j < plan::kChunks; ++j)
        if (plan::in_row(j, p)) held[j] = next[j];
      const int following = group + gridDim.x;
      if (following < groups) plan::load(next, source, safe_row(following), row_exists(following), p);
    }
#pragma unroll
    for (int j = 0; j < plan::kChunks; ++j) {
      if (plan::in_row(j, p)) {
        const int vector = plan::vector(j, p);
        typename plan::chunk data;
        if constexpr (kPersistent) {
          data = held[j];
        } else {
          data = source.template load<VecLanes>(row, vector * 4, row_valid);
          if (Source == pass2_registers) held[j] = data;
        }
        if (plan::kEarly) {
          early_scale[j] = load_packet<VecLanes>(early_scale_row + vector * 4);
          early_shift[j] = load_packet<VecLanes>(early_shift_row + vector * 4);
        }
        plan::push(lanes, data, j);
      }
    }

    const row_stats stats = plan::reduce(lanes, p, warp_totals[parity][row_in_cta], eps);

    bf16_bits* row_out = out + row * Hidden;
    const bf16_bits* row_scale =
        plan::kEarly ? early_scale_row : modulation_row(scale, row, tokens_per_batch, modulation_stride);
    const bf16_bits* row_shift =
        plan::kEarly ? early_shift_row : modulation_row(shift, row, tokens_per_batch, modulation_stride);
#pragma unroll
    for (int j = 0; j < plan::kChunks; ++j) {
      if (plan::in_row(j, p)) {
        const int vector = plan::vector(j, p);
        const typename plan::chunk data =
            Source == pass2_registers ? held[j] : source.template reload<VecLanes>(row, vector * 4);
        const typename plan::chunk sc = plan::kEarly ? early_scale[j] : load_packet<VecLanes>(row_scale + vector * 4);
        const typename plan::chunk sh = plan::kEarly ? early_shift[j] : load_packet<VecLanes>(row_shift + vector * 4);
        typename plan::chunk result;
#pragma unroll
        for (int w = 0; w < plan::kWords; ++w)
          result.set_word(w, plan::modulate(data.word(w), stats, sc.word(w), sh.word(w)));
        if (row_valid) store_packet<VecLanes>(row_out + vector * 4, result);
      }
    }
  };

  if constexpr (kPersistent) {
    int parity = 0;
#if EXACTUNE_PLANTED_FAULT == 4
    // Planted fault 4 (tests only): one set of warp totals, so that a warp that
    // runs ahead into the next group overwrites totals a slow warp has to read.
    for (int group = blockIdx.x; group < groups; group += gridDim.x) process(group, parity);
#else
    for (int group = blockIdx.x; group < groups; group += gridDim.x, parity ^= 1) process(group, parity);
#endif
  } else {
    process(blockIdx.x, 0);
  }
}

// No __launch_bounds__: with one, ptxas trades registers for occupancy and
// spills (w2_r2 at D3072 spilled 4 bytes at 72 registers on sm_90).
template <int Hidden, int NumWarps, int RowsPerCta, int VecLanes, int Tail, int Source, int Counts, int Modulation,
          int Elementwise, int Grid>
__global__ void fused_layer_norm_modulate(const bf16_bits* __restrict__ x, const bf16_bits* __restrict__ scale,
                                          const bf16_bits* __restrict__ shift, bf16_bits* __restrict__ out, int rows,
                                          int tokens_per_batch, long long modulation_stride, float eps) {
  fused_layer_norm_modulate_rows<Hidden, NumWarps, RowsPerCta, VecLanes, Tail, Source, Counts, Modulation, Elementwise,
                                 Grid>(row_in_memory<Hidden>{x}, scale, shift, out, rows, tokens_per_batch,
                                       modulation_stride, eps);
}

}  // namespace exactune_kernels
