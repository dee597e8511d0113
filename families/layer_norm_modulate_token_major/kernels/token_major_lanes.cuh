// The fused LayerNorm + modulate of a token-major x read in place with no
// transpose at all: x is (B, N, C) logically and (B, C, N) in memory (Sana's
// activations), the output the contiguous (B, N, C) that aten's chain writes.
//
// Why the bits are aten's, and why nothing is transposed. aten gives a row 128
// lanes; lane l pushes the row's 4-channel vectors l, l + 128, ... in order
// (spec.md of the contiguous family), then the lanes reduce in a fixed tree.
// Which channels a lane pushes, in which order, and so every count of its
// Welford state and of the tree, are the same for every row. So one thread
// here is aten's lane l for LaneTokens consecutive tokens at once:
//   - its loads run along N: a channel's LaneTokens tokens are contiguous in
//     token-major memory (one 4-, 8- or 16-byte load), and each value goes to
//     its own token's Welford state, in the lane's channel order;
//   - a push's 1/count and a combine's weights depend on counts only, so they
//     are computed once for all the tokens;
//   - pass 2 gathers each token's four channels of a vector from the four
//     loads and writes them to the token's contiguous output row (8 bytes a
//     lane, 256 contiguous bytes a warp).
// The row's values stay in registers between the passes: x is read once.
//
// A CTA serves a tile of RunThreads * LaneTokens tokens of one batch element
// with RunThreads * 128 threads. Thread i is aten lane i / RunThreads for the
// tokens from (i % RunThreads) * LaneTokens, so the RunThreads threads of one
// lane, adjacent in their warp, read one contiguous run of the tile's tokens
// of each channel: 16 tokens fill a 32-byte sector, which a warp's load then
// uses whole. aten's tree offset o becomes the thread offset o * RunThreads: a
// shuffle while that stays inside a warp, a round through shared memory where
// it crosses warps (the first level at RunThreads 2, the first two at 4); the
// two threads of a level split their tokens between them while they carry
// more than one (tree_split), so each level moves and combines half as many.
//
// A CTA may take TilesPerCta tiles of its batch element, strided by the CTAs
// of that element (CTA c takes tiles c, c + C, c + 2C, ...: the first tiles of
// every CTA are read before any second one). While it reduces and stores one
// tile, the next one's runs travel from global to shared memory by
// asynchronous copies, which hold no registers; each thread copies and reads
// back its own slots only, so the staging needs no barrier. With one tile a
// CTA an SM's loads, reduction and stores run one after the other, and so they
// do on every SM at once; with several, a CTA's stores and reduction overlap
// its next loads.
//
// Axes (see layer_norm_modulate_token_major_family.cpp for their constraints):
//   RunThreads   threads that share one lane's channels, each its own tokens: 1, 2 or 4
//   LaneTokens   tokens a thread carries: 2, 4 or 8 (loads of 4, 8 or 16 bytes along N)
//   TilesPerCta  tiles a CTA normalises, the next one staged in shared memory: 1, 2 or 4
//   Modulation   modulation_early: scale and shift loaded with x in pass 1 and
//                held (the tile's tokens share them); modulation_late: in pass 2
// A thread whose run is cut by the end of the tokens, or whose x is not
// aligned to the run (N % LaneTokens != 0), reads a token at a time.
#pragma once
#include "families/layer_norm_modulate/kernels/fused_layer_norm_modulate.cuh"
#include "families/layer_norm_modulate_token_major/kernels/token_runs.cuh"

namespace exactune_kernels {

// One thread's runs of one tile: round r (aten's vector lane + 128 r), channel
// c of it, LaneTokens tokens from first_token.
template <int Hidden, int LaneTokens>
struct lane_runs {
  static constexpr int kAtenLanes = 128;
  static constexpr int kRowVectors = Hidden / 4;
  static constexpr int kRounds = ceil_div(kRowVectors, kAtenLanes);  // vectors l, l + 128, ...
  static constexpr int kFullRounds = kRowVectors / kAtenLanes;
  static constexpr int kRunWords = LaneTokens / 2;
  token_run<kRunWords> run[kRounds][4];

  __device__ static bool in_row(int r, int lane) { return r < kFullRounds || lane + r * kAtenLanes < kRowVectors; }

  // Where run (r, c) of the thread's tokens from first_token starts.
  __device__ static const bf16_bits* run_address(const bf16_bits* batch_x, int tokens_per_batch, int lane, int r, int c,
                                                 int first_token) {
    return batch_x + static_cast<long long>(4 * (lane + r * kAtenLanes) + c) * tokens_per_batch + first_token;
  }

  // available: the thread's tokens before the end of its batch element's
  // (at most LaneTokens; none when <= 0); whole: its run is whole and aligned.
  __device__ void load(const bf16_bits* batch_x, int tokens_per_batch, int lane, int first_token, int available,
                       bool whole) {
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
      if (in_row(r, lane)) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const bf16_bits* p = run_address(batch_x, tokens_per_batch, lane, r, c, first_token);
          run[r][c] = whole ? load_token_run<kRunWords>(p) : load_partial_run<kRunWords>(p, available);
        }
      }
    }
  }

  // The staging of a whole, aligned tile: run (r, c) of thread i in slot
  // (4 r + c) * threads + i, so that a warp's copies and reads are contiguous.
  static constexpr int kStagedRuns = kRounds * 4;
  __device__ static int slot(int r, int c, int thread, int threads) { return (4 * r + c) * threads + thread; }

  __device__ static void stage(token_run<kRunWords>* staged, const bf16_bits* batch_x, int tokens_per_batch, int lane,
                               int first_token, int thread, int threads) {
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
      if (in_row(r, lane)) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          copy_words_async<kRunWords>(staged + slot(r, c, thread, threads),
                                      run_address(batch_x, tokens_per_batch, lane, r, c, first_token));
        }
      }
    }
  }

  // After wait_async_copies: the runs this thread staged.
  __device__ void unstage(const token_run<kRunWords>* staged, int lane, int thread, int threads) {
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
      if (in_row(r, lane)) {
#pragma unroll
        for (int c = 0; c < 4; ++c) run[r][c] = staged[slot(r, c, thread, threads)];
      }
    }
  }
};

// aten's warp tree over a thread's LaneTokens tokens, split as it goes. At a
// level, aten combines lane l with lane l + offset; the thread of lane l and
// the thread of lane l ^ offset form a pair, and while a thread carries more
// than one token, the lower side combines the first half of them and the upper
// side the second half, both as C(lower, upper). Each level then sends half
// as many values as the last and combines half as many, instead of all of them
// at every level. A thread's kept tokens are named by its lane's bits of the
// splitting offsets; the rest of its lane bits zero is the thread that ends
// with those tokens' totals (aten's lane 0). The bits are the ones a plain
// tree gives lane 0: a pair computes C(lower, upper) whichever side it is.
template <int LaneTokens>
struct tree_split {
  static constexpr int kSplitLevels = LaneTokens == 8 ? 3 : LaneTokens == 4 ? 2 : 1;
  __device__ static int kept_before(int level) { return LaneTokens >> (level < kSplitLevels ? level : kSplitLevels); }
  __device__ static int split_lane_bits() {
    int bits = 0;
    for (int level = 0; level < kSplitLevels; ++level) bits |= warp_tree_offset(level);
    return bits;
  }
};

template <int Hidden, int RunThreads, int LaneTokens, int Modulation, int TilesPerCta>
__global__ void __launch_bounds__(128 * RunThreads)
    token_major_lanes_layer_norm_modulate(const bf16_bits* __restrict__ x, const bf16_bits* __restrict__ scale,
                                          const bf16_bits* __restrict__ shift, bf16_bits* __restrict__ out,
                                          int tokens_per_batch, long long modulation_stride, float eps) {
  planted_crash();                         // nothing unless a test plants a crash
  const PlantedSlowdown planted_slowdown;  // nothing unless the gate's power test plants a slowdown
  typedef lane_runs<Hidden, LaneTokens> runs;
  constexpr int kAtenLanes = runs::kAtenLanes;
  constexpr int kRounds = runs::kRounds;
  constexpr int kThreads = kAtenLanes * RunThreads;
  constexpr int kTileTokens = RunThreads * LaneTokens;
  constexpr bool kEarly = Modulation == modulation_early;
  constexpr int kEarlyRounds = kEarly ? kRounds : 1;
  static_assert(Hidden % 4 == 0, "aten's vectorized kernel needs hidden % 4 == 0");
  static_assert(RunThreads == 1 || RunThreads == 2 || RunThreads == 4, "1, 2 or 4 threads share a lane");
  static_assert(LaneTokens == 2 || LaneTokens == 4 || LaneTokens == 8, "runs of 2, 4 or 8 tokens");
  static_assert(TilesPerCta == 1 || TilesPerCta == 2 || TilesPerCta == 4, "1, 2 or 4 tiles a CTA");

  const int lane = threadIdx.x / RunThreads;
  const int part = threadIdx.x % RunThreads;
  const int tiles_per_batch = ceil_div(tokens_per_batch, kTileTokens);
  const int ctas_per_batch = ceil_div(tiles_per_batch, TilesPerCta);
  const int batch = blockIdx.x / ctas_per_batch;
  const int first_tile = blockIdx.x % ctas_per_batch;
  const bool aligned =
      tokens_per_batch % LaneTokens == 0 && reinterpret_cast<unsigned long long>(x) % (2 * LaneTokens) == 0;
  const bf16_bits* const batch_x = x + static_cast<long long>(batch) * Hidden * tokens_per_batch;
  const bf16_bits* const scale_row = scale + static_cast<long long>(batch) * modulation_stride;
  const bf16_bits* const shift_row = shift + static_cast<long long>(batch) * modulation_stride;
  // Tile t of this CTA (it exists, for the whole CTA alike, while it is below
  // tiles_per_batch); this thread's tokens of it: from first_token(t),
  // available(t) of them (at most LaneTokens).
  auto tile_of = [&](int t) { return first_tile + t * ctas_per_batch; };
  auto first_token = [&](int t) { return tile_of(t) * kTileTokens + part * LaneTokens; };
  auto available = [&](int t) { return tokens_per_batch - first_token(t); };
  auto whole = [&](int t) { return aligned && available(t) >= LaneTokens; };

  // The staged next tile is dynamic shared memory on the GPU (over 48 KiB for
  // most shapes); the launcher gives the bytes of kStageRuns runs, which is checked. The host
  // compiler has no such limit, so there it is an array of its own.
  typedef token_run<runs::kRunWords> run_words;
  constexpr int kStageRuns = TilesPerCta > 1 ? runs::kStagedRuns * kThreads : 1;
#if defined(__CUDACC__)
  extern __shared__ __align__(16) unsigned char lane_stage_storage[];
  run_words* const staged = reinterpret_cast<run_words*>(lane_stage_storage);
  if (TilesPerCta > 1) {
    unsigned int dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < kStageRuns * sizeof(run_words)) __trap();
  }
#else
  alignas(16) __shared__ run_words lane_stage_storage[kStageRuns];
  run_words* const staged = lane_stage_storage;
#endif

  // The tiles' rows are of one batch element: early variants load its scale
  // and shift once, with the first tile's x.
  packet<1> early_scale[kEarlyRounds], early_shift[kEarlyRounds];
  runs held;
  held.load(batch_x, tokens_per_batch, lane, first_token(0), available(0), whole(0));
  if (kEarly) {
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
      if (runs::in_row(r, lane)) {
        early_scale[kEarly ? r : 0] = load_packet<1>(scale_row + 4 * (lane + r * kAtenLanes));
        early_shift[kEarly ? r : 0] = load_packet<1>(shift_row + 4 * (lane + r * kAtenLanes));
      }
    }
  }

  constexpr int kExchangeThreads = RunThreads > 1 ? kThreads : 1;
  __shared__ float exchange[2 * LaneTokens + 1][kExchangeThreads];
  __shared__ float total_mean[4][kTileTokens], total_m2[4][kTileTokens], total_count[4];
  __shared__ row_stats tile_stats[kTileTokens];
#pragma unroll 1
  for (int t = 0; t < TilesPerCta; ++t) {
    const bool has_next = t + 1 < TilesPerCta && tile_of(t + 1) < tiles_per_batch;
    if (has_next && whole(t + 1))
      runs::stage(staged, batch_x, tokens_per_batch, lane, first_token(t + 1), threadIdx.x, kThreads);

    // The pushes: element 4 r + c of the lane's sequence, for every token.
    float mean[LaneTokens], m2[LaneTokens];
#pragma unroll
    for (int k = 0; k < LaneTokens; ++k) mean[k] = m2[k] = 0.0f;
    float count = 0.0f;
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
      if (runs::in_row(r, lane)) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const float inv_count = __frcp_rn(static_cast<float>(4 * r + c + 1));
#pragma unroll
          for (int k = 0; k < LaneTokens; ++k)
            welford_push_moments(mean[k], m2[k], bf16_to_float(token_of(held.run[r][c], k)), inv_count);
        }
        count = static_cast<float>(4 * (r + 1));
      }
    }

    // aten's warp tree, every token at once, the tokens split between the two
    // sides of a pair while they last (see tree_split).
    int first_kept = 0;  // the first of the tokens this thread still carries
#pragma unroll
    for (int level = 0; level < 5; ++level) {
      const int offset = warp_tree_offset(level);
      const int distance = offset * RunThreads;
      const int kept = tree_split<LaneTokens>::kept_before(level);
      const int sent = kept > 1 ? kept / 2 : 1;
      const bool upper = (lane & offset) != 0;
      // A splitting pair's lower side keeps the first half of its tokens, the
      // upper side the second: each sends the half the other keeps.
      auto sent_index = [&](int j) { return kept > 1 && !upper ? kept / 2 + j : j; };
      auto own_index = [&](int j) { return kept > 1 && upper ? kept / 2 + j : j; };
      float other_mean[LaneTokens], other_m2[LaneTokens], other_count;
      if (distance < 32) {
        other_count = __shfl_xor_sync(0xffffffffu, count, distance);
#pragma unroll
        for (int j = 0; j < sent; ++j) {
          other_mean[j] = __shfl_xor_sync(0xffffffffu, mean[sent_index(j)], distance);
          other_m2[j] = __shfl_xor_sync(0xffffffffu, m2[sent_index(j)], distance);
        }
      } else {
        __syncthreads();  // an earlier level's or tile's reads are done
#pragma unroll
        for (int j = 0; j < sent; ++j) {
          exchange[j][threadIdx.x] = mean[sent_index(j)];
          exchange[LaneTokens + j][threadIdx.x] = m2[sent_index(j)];
        }
        exchange[2 * LaneTokens][threadIdx.x] = count;
        __syncthreads();
        const int from = threadIdx.x ^ distance;
#pragma unroll
        for (int j = 0; j < sent; ++j) {
          other_mean[j] = exchange[j][from];
          other_m2[j] = exchange[LaneTokens + j][from];
        }
        other_count = exchange[2 * LaneTokens][from];
      }
      // Both sides compute C(lower, upper), aten's lane l with lane l + offset.
      const float lower_count = upper ? other_count : count;
      const float upper_count = upper ? count : other_count;
      const combine_weights weights = weights_for(lower_count, upper_count);
#pragma unroll
      for (int j = 0; j < sent; ++j) {
        const welford_state mine{mean[own_index(j)], m2[own_index(j)], count};
        const welford_state theirs{other_mean[j], other_m2[j], other_count};
        const welford_state combined = welford_combine(upper ? theirs : mine, upper ? mine : theirs, weights);
        mean[j] = combined.mean;
        m2[j] = combined.m2;
      }
      if (kept > 1 && upper) first_kept += kept / 2;
      count = weights.count;
    }

    // The four warps' totals of each token, in aten's order, by one thread a
    // token; then every thread takes its tokens' statistics. (The previous
    // tile's readers of these arrays have all passed this tile's barriers or
    // the one below before they are written again.)
    if ((lane % 32 & ~tree_split<LaneTokens>::split_lane_bits()) == 0) {
      total_mean[lane / 32][part * LaneTokens + first_kept] = mean[0];
      total_m2[lane / 32][part * LaneTokens + first_kept] = m2[0];
      if (part == 0 && first_kept == 0) total_count[lane / 32] = count;
    }
    __syncthreads();
    if (threadIdx.x < kTileTokens) {
      welford_state totals[4];
#pragma unroll
      for (int w = 0; w < 4; ++w)
        totals[w] = welford_state{total_mean[w][threadIdx.x], total_m2[w][threadIdx.x], total_count[w]};
      tile_stats[threadIdx.x] = finalize_stats(combine_four_warps(totals), Hidden, eps);
    }
    __syncthreads();
    row_stats stats[LaneTokens];
#pragma unroll
    for (int k = 0; k < LaneTokens; ++k) stats[k] = tile_stats[part * LaneTokens + k];

    // Pass 2: token k's four channels of vector lane + 128 r, from the four runs.
    bf16_bits* const first_out = out + (static_cast<long long>(batch) * tokens_per_batch + first_token(t)) * Hidden;
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
      const int vector = lane + r * kAtenLanes;
      if (runs::in_row(r, lane)) {
        const packet<1> sc = kEarly ? early_scale[kEarly ? r : 0] : load_packet<1>(scale_row + 4 * vector);
        const packet<1> sh = kEarly ? early_shift[kEarly ? r : 0] : load_packet<1>(shift_row + 4 * vector);
#pragma unroll
        for (int k = 0; k < LaneTokens; ++k) {
          if (k < available(t)) {
            packet<1> result;
#pragma unroll
            for (int w = 0; w < 2; ++w) {
              const unsigned int pair =
                  pack_bf16x2(token_of(held.run[r][2 * w], k), token_of(held.run[r][2 * w + 1], k));
              result.set_word(w, modulated_layer_norm_bf16x2(pair, stats[k], sc.word(w), sh.word(w)));
            }
            store_packet<1>(first_out + static_cast<long long>(k) * Hidden + 4 * vector, result);
          }
        }
      }
    }
    if (!has_next) break;
    wait_async_copies();
    if (whole(t + 1)) {
      held.unstage(staged, lane, threadIdx.x, kThreads);
    } else {
      held.load(batch_x, tokens_per_batch, lane, first_token(t + 1), available(t + 1), false);
    }
  }
}

}  // namespace exactune_kernels
