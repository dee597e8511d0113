// The modulate chain of adaLN after the LayerNorm: the three eager bf16 steps
// t = 1 + scale, u = y * t, out = u + shift, each rounded to bf16 (spec.md,
// section 1), as one element at a time in float32 or as a packed bf16x2 pair.
// Intrinsics only, like kernel_templates/arith.cuh, which it builds on.
//
// EXACTUNE_PLANTED_FAULT == 2 (tests only) skips the bf16 rounding of u.
#pragma once
#include "kernel_templates/arith.cuh"

namespace exactune_kernels {

__device__ __forceinline__ bf16_bits one_plus(bf16_bits scale) {
  return bf16_round(__fadd_rn(bf16_to_float(scale), 1.0f));
}

__device__ __forceinline__ bf16_bits scaled(bf16_bits y, bf16_bits one_plus_scale) {
  return bf16_round(__fmul_rn(bf16_to_float(y), bf16_to_float(one_plus_scale)));
}

__device__ __forceinline__ bf16_bits shifted(bf16_bits u, bf16_bits shift) {
  return bf16_round(__fadd_rn(bf16_to_float(u), bf16_to_float(shift)));
}

// The whole chain for one element, as a fused kernel must compute it.
__device__ __forceinline__ bf16_bits modulated_layer_norm(float x, row_stats s, bf16_bits scale, bf16_bits shift) {
  const bf16_bits y = layer_norm_value(x, s);
#if EXACTUNE_PLANTED_FAULT == 2
  const float u_unrounded = __fmul_rn(bf16_to_float(y), bf16_to_float(one_plus(scale)));
  return bf16_round(__fadd_rn(u_unrounded, bf16_to_float(shift)));
#else
  return shifted(scaled(y, one_plus(scale)), shift);
#endif
}

// The chain for a pair of elements, one float32 step and one bf16 rounding at a time.
__device__ __forceinline__ unsigned int modulated_layer_norm_float32(unsigned int x, row_stats s, unsigned int scale,
                                                                     unsigned int shift) {
  return pack_bf16x2(modulated_layer_norm(low_half(x), s, low_bits(scale), low_bits(shift)),
                     modulated_layer_norm(high_half(x), s, high_bits(scale), high_bits(shift)));
}

// The same chain for a pair, with the three bf16 steps packed: 4 instructions
// where the float32 form takes about 20.
__device__ __forceinline__ unsigned int modulated_layer_norm_bf16x2(unsigned int x, row_stats s, unsigned int scale,
                                                                    unsigned int shift) {
#if EXACTUNE_PLANTED_FAULT == 2
  return modulated_layer_norm_float32(x, s, scale, shift);
#else
  const unsigned int y = bf16x2_round(normalized(low_half(x), s), normalized(high_half(x), s));
  return bf16x2_add(bf16x2_mul(y, bf16x2_add(scale, 0x3f803f80u)), shift);
#endif
}

}  // namespace exactune_kernels
