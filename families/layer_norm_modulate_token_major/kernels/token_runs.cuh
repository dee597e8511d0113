// Runs of tokens along N: in token-major memory a channel's consecutive tokens
// are contiguous, so one load brings 2, 4 or 8 tokens of one channel (one,
// two or four 32-bit words of bf16 pairs, the low half the earlier token).
// Both in-place kernels of the family read x this way.
#pragma once
#include "kernel_templates/arith.cuh"
#include "kernel_templates/packet.cuh"

namespace exactune_kernels {

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

// TokenWords words of x along N: 2, 4 or 8 tokens of one channel.
template <int TokenWords>
using token_run = bf16_words<TokenWords>;

// One aligned run: p is aligned to the run's 4 * TokenWords bytes.
template <int TokenWords>
__device__ __forceinline__ token_run<TokenWords> load_token_run(const bf16_bits* p) {
  return load_words<TokenWords>(p);
}

// Token k of a run (k a compile-time constant).
template <int TokenWords>
__device__ __forceinline__ bf16_bits token_of(const token_run<TokenWords>& r, int k) {
  return k % 2 == 0 ? low_bits(r.word(k / 2)) : high_bits(r.word(k / 2));
}

// A run that is cut short by the end of a batch element's tokens, or that is
// not aligned: its `available` first tokens a token at a time (none when
// available <= 0), the rest zero.
template <int TokenWords>
__device__ __forceinline__ token_run<TokenWords> load_partial_run(const bf16_bits* p, int available) {
  token_run<TokenWords> r;
#pragma unroll
  for (int i = 0; i < TokenWords; ++i) {
    const bf16_bits lo = 2 * i < available ? p[2 * i] : bf16_bits(0);
    const bf16_bits hi = 2 * i + 1 < available ? p[2 * i + 1] : bf16_bits(0);
    r.set_word(i, pack_bf16x2(lo, hi));
  }
  return r;
}

}  // namespace exactune_kernels
