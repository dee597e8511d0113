// The fused per-head LayerNorm of q and k (no affine), bf16:
//   q_out = F.layer_norm(q, (HeadDim,), eps), k_out likewise,
// one launch for both tensors (or one per tensor), bit-exact with torch 2.11's
// eager aten kernel. One template, one instantiation per variant; the head
// dimension is a compile-time constant.
//
// Why it is shaped so. aten normalises each head row with its vectorized
// kernel: 128 threads (4 warps of 32) per row, thread t pushing the 4-element
// vectors t, t + 128, ... A head row has only HeadDim / 4 <= 32 vectors, so
// only aten lanes 0 .. HeadDim/4 - 1 of warp 0 push anything; its other lanes
// and warps 1..3 keep the empty state Z = (mean 0, m2 0, count 0) and still
// enter every combine. The row's total is C(C(w0, Z), C(Z, Z)), w0 being warp
// 0's shuffle tree over 32 lanes of which only a prefix holds data. None of
// the other 96 threads is needed to reproduce that: the empty warps are
// constants. So here a row lives inside one warp (no shared memory, no
// barrier), served by kThreadsPerRow = 32 * NumWarps / RowsPerCta physical
// threads, a power of two from 1 to 32: several rows share a warp when the row
// is short, which is the point of this family (a HeadDim 32 row has 8 vectors).
//
// Thread p of a row stands in for aten lanes
//   lane(m, p, e) = m * kChunkVectors + p * VecLanes + e,  e < VecLanes,
// kChunkVectors = kThreadsPerRow * VecLanes; chunk m is one coalesced load of
// VecLanes adjacent vectors (8 or 16 bytes) per thread, and lanes[m][e] is the
// Welford state of that aten lane. Aten lane l pushes exactly vector l (a head
// row never reaches lane 128), so chunk m feeds lanes[m] and nothing else.
// Lanes of chunks past the row (m >= kChunks) are Z at compile time and are not
// stored; lanes of the partial last chunk are Z at run time (predicated load).
// aten's tree offsets o = 16, 8, 4, 2, 1 then become
//   o >= kChunkVectors:           lanes[m] <- C(lanes[m], lanes[m + o / kChunkVectors]),
//                                 inside the thread (a partner past kChunks is Z);
//   VecLanes <= o < kChunkVectors: a shuffle down by o / VecLanes;
//   o < VecLanes:                 lanes[0][e] <- C(lanes[0][e], lanes[0][e + o]).
//
// Why the shuffles may cross into the next row of the warp. Lane 0's total
// depends, before the level of offset o, only on the lanes l < 2o, and the
// combine at that level only matters for l < o, whose partner l + o < 2o lies
// inside the row (2o <= kChunkVectors at a shuffle level). A thread whose
// partner is in another row (or past lane 31, where shfl_down returns the
// caller's own value) computes a state no later level reads: with halving
// offsets, thread p is read at the next level only when p < o / (2 VecLanes).
// Data lanes are a prefix 0 .. HeadDim/4 - 1, so an empty own lane meets only
// empty partners: every C the tree runs is aten's C, with aten's operands.
//
// Axes (families/qk_head_layer_norm/qk_head_layer_norm_family.cpp holds their
// constraints):
//   NumWarps, RowsPerCta  the CTA shape; kThreadsPerRow = 32 * NumWarps / RowsPerCta
//   VecLanes              aten vectors per load: 1 (8-byte loads) or 2 (16-byte)
//   Counts                qk_counts_rcp: the Welford count travels with the
//                         state and every combine computes its weights from it
//                         (a third shuffle per level); qk_counts_fold: every
//                         count follows from the aten lane and HeadDim, so the
//                         shuffles move mean and m2 only and the weights are
//                         computed apart from the data (same bits: the counts
//                         are the same small integers, exact in float)
//   QkGrid                qk_grid_joint: one grid, CTAs 0 .. ceil(q_rows / R) - 1
//                         serve q's row groups, the rest k's; qk_grid_split: the
//                         kernel serves the first tensor only (q, q_out, q_rows;
//                         k, k_out and k_rows are ignored) and the launcher calls
//                         it twice, once with q's pointers and rows, once with k's
//                         in the q slots
// The row stays in registers between the statistics and the output (a head row
// is at most 256 bytes); pass 2 does not re-read it.
#pragma once
#include "kernel_templates/arith.cuh"
#include "kernel_templates/packet.cuh"
#include "kernel_templates/planted_crash.cuh"
#include "kernel_templates/planted_slowdown.cuh"

namespace exactune_kernels {

enum qk_count_mode { qk_counts_rcp = 0, qk_counts_fold = 1 };
enum qk_grid_form { qk_grid_joint = 0, qk_grid_split = 1 };

namespace qk_detail {

// Values behind the tree node of aten lane `lane` whose lanes are lane,
// lane + step, lane + 2 step, ... (below 32): 4 per data lane, and the data
// lanes are those below row_vectors. Before the level of offset o the nodes'
// step is 2 o (32 before the first level: one lane each).
__device__ __forceinline__ float node_count(int lane, int step, int row_vectors) {
  return lane < row_vectors ? static_cast<float>(4 * ((row_vectors - 1 - lane) / step + 1)) : 0.0f;
}

template <int HeadDim, int NumWarps, int RowsPerCta, int VecLanes, int Counts>
struct head_row {
  static constexpr int kAtenWarpLanes = 32;  // aten's warp 0: the only warp that holds data
  static constexpr int kRowVectors = HeadDim / 4;
  static constexpr int kThreadsPerRow = 32 * NumWarps / RowsPerCta;
  static constexpr int kChunkVectors = kThreadsPerRow * VecLanes;
  static constexpr int kChunks = (kRowVectors + kChunkVectors - 1) / kChunkVectors;
  static constexpr int kWords = 2 * VecLanes;
  static constexpr bool kFold = Counts == qk_counts_fold;
  static_assert(HeadDim % 4 == 0 && HeadDim >= 4 && HeadDim <= 4 * kAtenWarpLanes,
                "aten's vectorized kernel needs HeadDim % 4 == 0; a row of more than 32 vectors reaches aten's "
                "warps 1..3, which this kernel does not emulate");
  static_assert(VecLanes == 1 || VecLanes == 2, "8- or 16-byte loads");
  static_assert(VecLanes == 1 || HeadDim % 8 == 0, "16-byte loads need 16-byte aligned rows");
  static_assert(32 * NumWarps % RowsPerCta == 0 && kThreadsPerRow >= 1 && kThreadsPerRow <= 32 &&
                    (kThreadsPerRow & (kThreadsPerRow - 1)) == 0,
                "a row is served by a power-of-two number of threads of one warp");
  static_assert(kChunkVectors <= kAtenWarpLanes, "a chunk may not span more than aten's 32 lanes of warp 0");

  typedef packet<VecLanes> chunk;
  typedef welford_state lane_states[kChunks][VecLanes];

  __device__ static int vector(int m, int p) { return m * kChunkVectors + p * VecLanes; }
  // With 16-byte loads HeadDim % 8 == 0: the row's vector count is even, so a
  // packet's two vectors are both in the row or both past it.
  __device__ static bool in_row(int m, int p) { return vector(m, p) < kRowVectors; }

  // Aten lane l pushes its one vector's four values in order: counts 1..4, so
  // the folded form's reciprocals are constants.
  __device__ static void push(welford_state& lane, unsigned int lo_word, unsigned int hi_word) {
    const float values[4] = {low_half(lo_word), high_half(lo_word), low_half(hi_word), high_half(hi_word)};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (kFold) {
        welford_push_counted(lane, values[k], k);
      } else {
        welford_push(lane, values[k]);
      }
    }
  }

  // C(own, other) at the level of offset `offset`, own being aten lane `lane`.
  __device__ static welford_state combine(const welford_state& own, const welford_state& other, int lane, int offset) {
    if (kFold) {
      const int step = 2 * offset;
      return welford_combine(
          own, other, weights_for(node_count(lane, step, kRowVectors), node_count(lane + offset, step, kRowVectors)));
    }
    return welford_combine(own, other);
  }

  __device__ static welford_state shuffled(const welford_state& s, int lane, int offset) {
    if (kFold) return shfl_down_moments(s, offset / VecLanes, node_count(lane + offset, 2 * offset, kRowVectors));
    return shfl_down_state(s, offset / VecLanes);
  }

  // aten's warp-0 tree, then C(C(w0, Z), C(Z, Z)), then the statistics. Every
  // thread runs it on its own states (the same instructions, so every shuffle
  // has its whole warp); the row's thread 0 holds lane 0, whose result the
  // row's other threads then take.
  __device__ static row_stats reduce(lane_states& lanes, int p, float eps) {
    const welford_state zero = {0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int level = 0; level < 5; ++level) {
      const int offset = warp_tree_offset(level);
      if (offset >= kChunkVectors) {
        const int shift = offset / kChunkVectors;
        // Groups at or past `shift` feed lane 0 no more; groups past kChunks
        // are Z, and C(Z, Z) = Z.
#pragma unroll
        for (int m = 0; m < kChunks && m < shift; ++m)
#pragma unroll
          for (int e = 0; e < VecLanes; ++e) {
            const int partner = m + shift;
            const welford_state other = partner < kChunks ? lanes[partner < kChunks ? partner : 0][e] : zero;
            lanes[m][e] = combine(lanes[m][e], other, vector(m, p) + e, offset);
          }
      } else if (offset >= VecLanes) {
#pragma unroll
        for (int e = 0; e < VecLanes; ++e) {
          const int lane = vector(0, p) + e;
          lanes[0][e] = combine(lanes[0][e], shuffled(lanes[0][e], lane, offset), lane, offset);
        }
      } else {
#pragma unroll
        for (int e = 0; e < VecLanes && e < offset; ++e)
          lanes[0][e] =
              combine(lanes[0][e], lanes[0][e + offset < VecLanes ? e + offset : 0], vector(0, p) + e, offset);
      }
    }
    welford_state warps[4] = {lanes[0][0], zero, zero, zero};
    // Row thread 0's count is HeadDim (the other threads' totals are discarded):
    // a constant lets the compiler fold the cross-warp weights.
    if (kFold) warps[0].count = static_cast<float>(HeadDim);
    row_stats stats = finalize_stats(combine_four_warps(warps), HeadDim, eps);
    if (kThreadsPerRow > 1) {
      const int leader = static_cast<int>(threadIdx.x % 32u) / kThreadsPerRow * kThreadsPerRow;
      stats.mean = __shfl_sync(0xffffffffu, stats.mean, leader);
      stats.rstd = __shfl_sync(0xffffffffu, stats.rstd, leader);
    }
    return stats;
  }
};

}  // namespace qk_detail

// q and k are (rows, HeadDim) bf16, contiguous, 8-byte aligned (16 with
// VecLanes 2); outputs likewise. Block: 32 * NumWarps threads, grid: see QkGrid.
template <int HeadDim, int NumWarps, int RowsPerCta, int VecLanes, int Counts, int QkGrid>
__global__ void __launch_bounds__(32 * NumWarps)
    fused_qk_head_layer_norm(const bf16_bits* __restrict__ q, const bf16_bits* __restrict__ k,
                             bf16_bits* __restrict__ q_out, bf16_bits* __restrict__ k_out, int q_rows, int k_rows,
                             float eps) {
  planted_crash();                         // nothing unless a test plants a crash
  const PlantedSlowdown planted_slowdown;  // nothing unless the gate's power test plants a slowdown
  typedef qk_detail::head_row<HeadDim, NumWarps, RowsPerCta, VecLanes, Counts> plan;
  static_assert(QkGrid == qk_grid_joint || QkGrid == qk_grid_split, "joint or split grid");

  // Which tensor this CTA serves: in a joint grid, q's row groups come first.
  const int q_groups = (q_rows + RowsPerCta - 1) / RowsPerCta;
  const bool serves_k = QkGrid == qk_grid_joint && static_cast<int>(blockIdx.x) >= q_groups;
  const bf16_bits* x = serves_k ? k : q;
  bf16_bits* out = serves_k ? k_out : q_out;
  const int rows = serves_k ? k_rows : q_rows;
  const int group = serves_k ? static_cast<int>(blockIdx.x) - q_groups : static_cast<int>(blockIdx.x);

  const int row_in_cta = static_cast<int>(threadIdx.x) / plan::kThreadsPerRow;
  const int p = static_cast<int>(threadIdx.x) % plan::kThreadsPerRow;
  // A CTA's surplus rows compute the tensor's last row again and store nothing,
  // so that loads need no row guard and every thread reaches every shuffle.
  const int wanted = group * RowsPerCta + row_in_cta;
  const bool row_valid = wanted < rows;
  const long long row = row_valid ? wanted : rows - 1;
  const bf16_bits* row_x = x + row * HeadDim;

  typename plan::chunk data[plan::kChunks];
  typename plan::lane_states lanes;
#pragma unroll
  for (int m = 0; m < plan::kChunks; ++m) {
#pragma unroll
    for (int e = 0; e < VecLanes; ++e) lanes[m][e] = welford_state{0.0f, 0.0f, 0.0f};
    if (plan::in_row(m, p)) {
      data[m] = load_packet<VecLanes>(row_x + plan::vector(m, p) * 4);
#pragma unroll
      for (int e = 0; e < VecLanes; ++e) plan::push(lanes[m][e], data[m].word(2 * e), data[m].word(2 * e + 1));
    }
  }

  const row_stats stats = plan::reduce(lanes, p, eps);

  bf16_bits* row_out = out + row * HeadDim;
#pragma unroll
  for (int m = 0; m < plan::kChunks; ++m) {
    if (plan::in_row(m, p)) {
      typename plan::chunk y;
#pragma unroll
      for (int w = 0; w < plan::kWords; ++w)
        y.set_word(w, bf16x2_round(normalized(low_half(data[m].word(w)), stats),
                                   normalized(high_half(data[m].word(w)), stats)));
      if (row_valid) store_packet<VecLanes>(row_out + plan::vector(m, p) * 4, y);
    }
  }
}

}  // namespace exactune_kernels
