// The gated residual of a DiT block, r = x + gate * h in bf16, as PyTorch 2.11
// eager runs it (spec.md beside this folder): at::mul rounds the product to
// bf16, then at::add rounds the float32 sum to bf16. One element at a time in
// float32, or a packed bf16x2 pair; intrinsics only, like
// kernel_templates/arith.cuh, so that no compiler contracts the two steps.
//
// EXACTUNE_PLANTED_FAULT (tests only): 9 computes x + gate * h as one FMA (what
// torch.addcmul does), 10 adds the float32 product without rounding it to bf16.
#pragma once
#include "kernel_templates/arith.cuh"

namespace exactune_kernels {

// p = bf16(gate * h): the product of two bf16 is exact in float32, then rounded.
__device__ __forceinline__ bf16_bits gate_product(bf16_bits gate, bf16_bits h) {
  return bf16_round(__fmul_rn(bf16_to_float(gate), bf16_to_float(h)));
}

// r = bf16(x + p): a float32 sum, then bf16.
__device__ __forceinline__ bf16_bits residual_sum(bf16_bits x, bf16_bits p) {
  return bf16_round(__fadd_rn(bf16_to_float(x), bf16_to_float(p)));
}

// The whole residual of one element, as a fused kernel must compute it.
__device__ __forceinline__ bf16_bits gated_residual(bf16_bits x, bf16_bits gate, bf16_bits h) {
#if EXACTUNE_PLANTED_FAULT == 9
  return bf16_round(__fmaf_rn(bf16_to_float(gate), bf16_to_float(h), bf16_to_float(x)));
#elif EXACTUNE_PLANTED_FAULT == 10
  return bf16_round(__fadd_rn(bf16_to_float(x), __fmul_rn(bf16_to_float(gate), bf16_to_float(h))));
#else
  return residual_sum(x, gate_product(gate, h));
#endif
}

// A pair of elements, one float32 step and one bf16 rounding at a time.
__device__ __forceinline__ unsigned int gated_residual_float32(unsigned int x, unsigned int gate, unsigned int h) {
  return pack_bf16x2(gated_residual(low_bits(x), low_bits(gate), low_bits(h)),
                     gated_residual(high_bits(x), high_bits(gate), high_bits(h)));
}

// The same pair as two packed bf16x2 steps that each round once. The same bits:
// the product is exact in float32, and the float32 sum of two bf16 carries
// 24 >= 2 * 8 + 2 bits, so rounding it again to bf16 equals rounding the exact
// sum once (arith.cuh; its GPU check covers every pair of bf16 operands).
__device__ __forceinline__ unsigned int gated_residual_bf16x2(unsigned int x, unsigned int gate, unsigned int h) {
#if EXACTUNE_PLANTED_FAULT == 9 || EXACTUNE_PLANTED_FAULT == 10
  return gated_residual_float32(x, gate, h);
#else
  return bf16x2_add(x, bf16x2_mul(gate, h));
#endif
}

}  // namespace exactune_kernels
