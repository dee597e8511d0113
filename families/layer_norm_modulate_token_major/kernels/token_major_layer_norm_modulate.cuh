// The fused LayerNorm + modulate of a token-major x, read in place: x is
// (B, N, C) logically and (B, C, N) in memory (Sana's activations), the output
// is the contiguous (B, N, C) that aten's chain writes after its x.contiguous().
//
// Why the bits are aten's. A row's statistics depend only on its values and
// the order aten combines them in, not on how the values reached the
// registers. So a CTA takes a tile of TileTokens tokens of one batch element:
//   1. it reads the tile's (C, TileTokens) block of x along N, coalesced, and
//      writes it transposed into shared memory, one row of C per token;
//   2. it normalises the tile's rows from shared memory with the contiguous
//      family's row plan (fused_row: aten's lanes, tree and order, the same
//      code), RowsPerCta rows at a time, and writes each row of the output
//      contiguously.
// Every row of a tile is of one batch element, so its scale and shift rows are
// the tile's: modulation_early loads them once per CTA and holds them.
//
// Axes (see layer_norm_modulate_token_major_family.cpp for their constraints):
//   NumWarps, RowsPerCta, VecLanes, Modulation  as in fused_layer_norm_modulate.cuh,
//                         for step 2's reads of shared memory and its writes
//   TileTokens            tokens per CTA (2 to 32): more makes longer runs
//                         of x per channel (16 tokens fill a 32-byte sector)
//                         and fewer, larger CTAs; fewer gives each SM more
//                         CTAs whose loads, reductions and stores overlap
//   Layout                tile_padded: rows of C + 4 * VecLanes elements, which
//                         keeps step 2's packets aligned and spreads step 1's
//                         stores over half the banks; tile_swizzled: rows of C
//                         rounded up to 64 elements, each row's 16-byte units
//                         permuted by an XOR of its token, so that the tokens
//                         one store instruction writes fall in different banks
//   TokenWords            32-bit words per load along N (2, 4 or 8 tokens); a
//                         tile whose run of tokens is partial or misaligned
//                         (N % tokens per load != 0) is read one token at a time
//
// EXACTUNE_PLANTED_FAULT == 8 (tests only): step 2 reads swizzled rows with a
// permutation that ignores the token's bit 3, which only a swizzled variant
// with tiles of more than 8 tokens can show.
#pragma once
#include "families/layer_norm_modulate/kernels/fused_layer_norm_modulate.cuh"
#include "families/layer_norm_modulate_token_major/kernels/token_runs.cuh"

namespace exactune_kernels {

enum tile_layout_form { tile_padded = 0, tile_swizzled = 1 };

// Where element `element` of token `token`'s row lies in the tile.
template <int Hidden, int VecLanes, int Layout>
struct token_tile {
  static constexpr int kUnitElements = 8;  // 16 bytes: the swizzle moves whole units
  static constexpr int kSwizzleUnits = 8;  // XOR values 0..7: a row is a whole number of groups of 8 units
  static constexpr int kRowStride = Layout == tile_swizzled
                                        ? (Hidden + kUnitElements * kSwizzleUnits - 1) /
                                              (kUnitElements * kSwizzleUnits) * (kUnitElements * kSwizzleUnits)
                                        : Hidden + 4 * VecLanes;

  __device__ static int permutation(int token) { return (token ^ (token >> 3)) & (kSwizzleUnits - 1); }
  __device__ static int read_permutation(int token) {
    return EXACTUNE_PLANTED_FAULT == 8 ? token & (kSwizzleUnits - 1) : permutation(token);
  }
  __device__ static int offset(int token, int element, int swizzle) {
    if (Layout == tile_padded) return token * kRowStride + element;
    const int unit = element / kUnitElements;
    return token * kRowStride + (unit ^ swizzle) * kUnitElements + element % kUnitElements;
  }
};

// __launch_bounds__: a CTA of 512 threads must fit the SM's registers (128 a
// thread); without it ptxas gave some such variants more, and they could not launch.
template <int Hidden, int NumWarps, int RowsPerCta, int VecLanes, int Modulation, int TileTokens, int Layout,
          int TokenWords>
__global__ void __launch_bounds__(NumWarps * 32)
    token_major_layer_norm_modulate(const bf16_bits* __restrict__ x, const bf16_bits* __restrict__ scale,
                                    const bf16_bits* __restrict__ shift, bf16_bits* __restrict__ out,
                                    int tokens_per_batch, long long modulation_stride, float eps) {
  planted_crash();                         // nothing unless a test plants a crash
  const PlantedSlowdown planted_slowdown;  // nothing unless the gate's power test plants a slowdown
  typedef fused_row<Hidden, NumWarps, RowsPerCta, VecLanes, tail_predicated, pass2_registers, counts_runtime,
                    Modulation, elementwise_bf16x2>
      plan;
  typedef token_tile<Hidden, VecLanes, Layout> tile_map;
  constexpr int kThreads = NumWarps * 32;
  constexpr int kRunTokens = 2 * TokenWords;
  constexpr int kRunsPerChannel = TileTokens / kRunTokens;
  constexpr int kRuns = Hidden * kRunsPerChannel;
  constexpr int kElements = Hidden * TileTokens;
  // Each thread issues all its loads of x before it stores what they bring, up
  // to 128 bytes: a CTA's whole tile is then in flight at once for most tiles.
  constexpr int kLoadsInFlight =
      ceil_div(kRuns, kThreads) < 32 / TokenWords ? ceil_div(kRuns, kThreads) : 32 / TokenWords;
  constexpr int kElementsInFlight = ceil_div(kElements, kThreads) < 32 ? ceil_div(kElements, kThreads) : 32;
  constexpr int kTileElements = TileTokens * tile_map::kRowStride;
  static_assert(TileTokens % kRunTokens == 0 && TileTokens % RowsPerCta == 0, "a tile is whole runs and row groups");
  static_assert(plan::kThreadsPerRow * RowsPerCta == kThreads, "RowsPerCta rows at a time use every thread");

  // The tile is dynamic shared memory on the GPU (over 48 KiB for most
  // tiles); the launcher gives kTileElements * 2 bytes, which is checked. The
  // host compiler has no such limit, so there it is an array of its own.
#if defined(__CUDACC__)
  extern __shared__ __align__(16) unsigned char token_tile_storage[];
  bf16_bits* const tile = reinterpret_cast<bf16_bits*>(token_tile_storage);
  unsigned int dynamic_bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
  if (dynamic_bytes < kTileElements * 2u) __trap();
#else
  alignas(16) __shared__ bf16_bits token_tile_storage[kTileElements];
  bf16_bits* const tile = token_tile_storage;
#endif

  const int tiles_per_batch = (tokens_per_batch + TileTokens - 1) / TileTokens;
  const int batch = blockIdx.x / tiles_per_batch;
  const int first_token = (blockIdx.x % tiles_per_batch) * TileTokens;
  const int tile_tokens = tokens_per_batch - first_token < TileTokens ? tokens_per_batch - first_token : TileTokens;
  const bf16_bits* const batch_x = x + static_cast<long long>(batch) * Hidden * tokens_per_batch;

  // Step 1: x's (C, tile_tokens) block into the tile, transposed.
  const bool whole_runs = tile_tokens == TileTokens && tokens_per_batch % kRunTokens == 0 &&
                          reinterpret_cast<unsigned long long>(x) % (4 * TokenWords) == 0;
  if (whole_runs) {
    for (int first = 0; first < kRuns; first += kThreads * kLoadsInFlight) {
      token_run<TokenWords> runs[kLoadsInFlight];
#pragma unroll
      for (int i = 0; i < kLoadsInFlight; ++i) {
        const int run = first + i * kThreads + threadIdx.x;
        if (run < kRuns) {
          const int channel = run / kRunsPerChannel;
          const int token = (run % kRunsPerChannel) * kRunTokens;
          runs[i] = load_token_run<TokenWords>(batch_x + static_cast<long long>(channel) * tokens_per_batch +
                                               first_token + token);
        }
      }
#pragma unroll
      for (int i = 0; i < kLoadsInFlight; ++i) {
        const int run = first + i * kThreads + threadIdx.x;
        if (run < kRuns) {
          const int channel = run / kRunsPerChannel;
          const int token = (run % kRunsPerChannel) * kRunTokens;
#pragma unroll
          for (int k = 0; k < kRunTokens; ++k) {
            tile[tile_map::offset(token + k, channel, tile_map::permutation(token + k))] = token_of(runs[i], k);
          }
        }
      }
    }
  } else {
    for (int first = 0; first < kElements; first += kThreads * kElementsInFlight) {
      bf16_bits values[kElementsInFlight];
#pragma unroll
      for (int i = 0; i < kElementsInFlight; ++i) {
        const int element = first + i * kThreads + threadIdx.x;
        if (element < kElements && element % TileTokens < tile_tokens) {
          values[i] = batch_x[static_cast<long long>(element / TileTokens) * tokens_per_batch + first_token +
                              element % TileTokens];
        }
      }
#pragma unroll
      for (int i = 0; i < kElementsInFlight; ++i) {
        const int element = first + i * kThreads + threadIdx.x;
        const int token = element % TileTokens;
        if (element < kElements && token < tile_tokens) {
          tile[tile_map::offset(token, element / TileTokens, tile_map::permutation(token))] = values[i];
        }
      }
    }
  }
  __syncthreads();

  // Step 2: the tile's rows, RowsPerCta at a time, with the contiguous
  // family's row plan. Its reduction's barrier is reached by every thread:
  // surplus rows of the last group compute the tile's last row again and
  // store nothing. Two sets of warp totals, as in a persistent CTA.
  const int row_in_group = threadIdx.x / plan::kThreadsPerRow;
  const int p = threadIdx.x % plan::kThreadsPerRow;
  const bf16_bits* const scale_row = scale + static_cast<long long>(batch) * modulation_stride;
  const bf16_bits* const shift_row = shift + static_cast<long long>(batch) * modulation_stride;
  constexpr int kEarlyChunks = plan::kEarly ? plan::kChunks : 1;
  typename plan::chunk early_scale[kEarlyChunks], early_shift[kEarlyChunks];
  if (plan::kEarly) {
#pragma unroll
    for (int j = 0; j < plan::kChunks; ++j) {
      if (plan::in_row(j, p)) {
        early_scale[j] = load_packet<VecLanes>(scale_row + plan::vector(j, p) * 4);
        early_shift[j] = load_packet<VecLanes>(shift_row + plan::vector(j, p) * 4);
      }
    }
  }
  __shared__ welford_state warp_totals[2][RowsPerCta][4];
  int parity = 0;
  for (int group_first = 0; group_first < tile_tokens; group_first += RowsPerCta, parity ^= 1) {
    const bool row_valid = group_first + row_in_group < tile_tokens;
    const int token = row_valid ? group_first + row_in_group : tile_tokens - 1;
    const int swizzle = tile_map::read_permutation(token);
    typename plan::lane_states lanes;
    plan::start(lanes);
    typename plan::chunk held[plan::kChunks];
#pragma unroll
    for (int j = 0; j < plan::kChunks; ++j) {
      if (plan::in_row(j, p)) {
        held[j] = load_packet<VecLanes>(tile + tile_map::offset(token, plan::vector(j, p) * 4, swizzle));
        plan::push(lanes, held[j], j);
      }
    }
    const row_stats stats = plan::reduce(lanes, p, warp_totals[parity][row_in_group], eps);

    bf16_bits* const row_out = out + (static_cast<long long>(batch) * tokens_per_batch + first_token + token) * Hidden;
#pragma unroll
    for (int j = 0; j < plan::kChunks; ++j) {
      if (plan::in_row(j, p)) {
        const int vector = plan::vector(j, p);
        const typename plan::chunk sc = plan::kEarly ? early_scale[j] : load_packet<VecLanes>(scale_row + vector * 4);
        const typename plan::chunk sh = plan::kEarly ? early_shift[j] : load_packet<VecLanes>(shift_row + vector * 4);
        typename plan::chunk result;
#pragma unroll
        for (int w = 0; w < plan::kWords; ++w)
          result.set_word(w, plan::modulate(held[j].word(w), stats, sc.word(w), sh.word(w)));
        if (row_valid) store_packet<VecLanes>(row_out + vector * 4, result);
      }
    }
  }
}

}  // namespace exactune_kernels
