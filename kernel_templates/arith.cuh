// The arithmetic exactune's kernels share: bf16 rounding and packing, packed
// bf16x2 steps, and aten's LayerNorm statistics (Welford push and combine, the
// warp tree, the finalisation), which every normalising family reproduces.
// Each float operation is an explicit single-rounding intrinsic, so that neither
// NVRTC nor a host compiler can contract, reorder or fuse anything: the order
// written here is the order aten 2.11 executes (docs/aten-layernorm-bf16.md).
//
// EXACTUNE_PLANTED_FAULT (tests only) compiles a deliberately wrong variant of one
// step, to prove that verification catches a single moved bit:
//   1 swaps the operands of the combine's mean FMA, 3 walks the warp tree with
//   offsets 1,2,4,8,16 (2 and 4 to 7 are a family's own: see its kernels).
#pragma once

#ifndef EXACTUNE_PLANTED_FAULT
#define EXACTUNE_PLANTED_FAULT 0
#endif

namespace exactune_kernels {

typedef unsigned short bf16_bits;

struct welford_state {
  float mean;
  float m2;
  float count;
};

__device__ __forceinline__ float bf16_to_float(bf16_bits b) {
  return __uint_as_float(static_cast<unsigned int>(b) << 16);
}

// Round to nearest even with integer operations: the form the host build uses,
// which has no cvt instruction. NaN becomes the canonical 0x7fff, as cvt.rn does.
__device__ __forceinline__ bf16_bits bf16_round_integer(float f) {
  const unsigned int u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
  return static_cast<bf16_bits>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// Round to nearest even, as aten's c10::BFloat16 does on sm_80+ (cvt.rn.bf16.f32).
// The host build uses the integer form; kernel_templates/arith_checks.cuh lets a
// GPU test compare the two over all 2^32 floats.
__device__ __forceinline__ bf16_bits bf16_round(float f) {
#if defined(__CUDA_ARCH__)
  unsigned short r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
#else
  return bf16_round_integer(f);
#endif
}

// A push's mean and m2, given 1/count after it. The count is the lane's, not
// the data's: a kernel that pushes one lane's values for several rows at once
// computes 1/count once for all of them.
__device__ __forceinline__ void welford_push_moments(float& mean, float& m2, float value, float inv_count) {
  const float delta = __fsub_rn(value, mean);
  mean = __fmaf_rn(delta, inv_count, mean);
  m2 = __fmaf_rn(delta, __fsub_rn(value, mean), m2);  // the new mean
}

__device__ __forceinline__ void welford_push(welford_state& s, float value) {
  s.count = __fadd_rn(s.count, 1.0f);
  welford_push_moments(s.mean, s.m2, value, __frcp_rn(s.count));
}

// The same push for a lane whose count before it is known when the kernel is
// compiled (every lane of the fused kernel: a lane that pushes in a chunk pushed
// in all its earlier chunks), so that 1/count folds to a constant: the compiler
// evaluates __frcp_rn of a constant.
__device__ __forceinline__ void welford_push_counted(welford_state& s, float value, int count_before) {
  s.count = static_cast<float>(count_before + 1);
  welford_push_moments(s.mean, s.m2, value, __frcp_rn(s.count));
}

// How C(own, other) of the spec weighs its two sides. It depends on the two
// counts only, never on the data: a kernel that knows the counts beforehand
// gets the weights folded at compile time, or computed off the critical path.
struct combine_weights {
  float count;  // own.count + other.count
  float other_count;
  float share_other;
  float share_own;
};

__device__ __forceinline__ combine_weights weights_for(float own_count, float other_count) {
  combine_weights w;
  w.count = __fadd_rn(other_count, own_count);
  w.other_count = other_count;
  if (w.count > 0.0f) {
    const float k = __frcp_rn(w.count);
    w.share_other = __fmul_rn(other_count, k);
    w.share_own = __fmul_rn(own_count, k);
  } else {
    w.share_other = 0.0f;
    w.share_own = 0.0f;
  }
  return w;
}

// C(own, other) of the spec, with the weights of the two sides' counts. An
// empty partner still runs the formula: count * (1/count) is not always exactly 1.
__device__ __forceinline__ welford_state welford_combine(welford_state own, welford_state other, combine_weights w) {
  welford_state r;
  r.count = w.count;
  if (w.count > 0.0f) {
    const float delta = __fsub_rn(own.mean, other.mean);
#if EXACTUNE_PLANTED_FAULT == 1
    r.mean = __fmaf_rn(w.share_own, own.mean, __fmul_rn(w.share_other, other.mean));
#else
    r.mean = __fmaf_rn(w.share_other, other.mean, __fmul_rn(w.share_own, own.mean));
#endif
    r.m2 = __fmaf_rn(__fmul_rn(__fmul_rn(delta, delta), w.other_count), w.share_own, __fadd_rn(other.m2, own.m2));
  } else {
    r.mean = 0.0f;
    r.m2 = 0.0f;
  }
  return r;
}

__device__ __forceinline__ welford_state welford_combine(welford_state own, welford_state other) {
  return welford_combine(own, other, weights_for(own.count, other.count));
}

__device__ __forceinline__ welford_state shfl_down_state(welford_state s, int offset) {
  welford_state r;
  r.mean = __shfl_down_sync(0xffffffffu, s.mean, offset);
  r.m2 = __shfl_down_sync(0xffffffffu, s.m2, offset);
  r.count = __shfl_down_sync(0xffffffffu, s.count, offset);
  return r;
}

// The same shuffle for a kernel that knows the partner's count: mean and m2 only.
__device__ __forceinline__ welford_state shfl_down_moments(welford_state s, int offset, float partner_count) {
  welford_state r;
  r.mean = __shfl_down_sync(0xffffffffu, s.mean, offset);
  r.m2 = __shfl_down_sync(0xffffffffu, s.m2, offset);
  r.count = partner_count;
  return r;
}

// aten's in-warp tree: offsets 16, 8, 4, 2, 1 at levels 0..4.
__device__ __forceinline__ int warp_tree_offset(int level) {
#if EXACTUNE_PLANTED_FAULT == 3
  return 1 << level;
#else
  return 16 >> level;
#endif
}

// The block's four warp totals w0..w3 in aten's order: C(C(w0, w2), C(w1, w3)).
__device__ __forceinline__ welford_state combine_four_warps(const welford_state* w) {
  return welford_combine(welford_combine(w[0], w[2]), welford_combine(w[1], w[3]));
}

struct row_stats {
  float mean;
  float rstd;
};

// rsqrtf is the hardware approximation aten calls; 1/sqrtf would differ.
__device__ __forceinline__ row_stats finalize_stats(welford_state total, int row_length, float epsilon) {
  const float var = __fdiv_rn(total.m2, static_cast<float>(row_length));
  row_stats s;
  s.mean = total.mean;
  s.rstd = rsqrtf(__fadd_rn(var, epsilon));
  return s;
}

// The LayerNorm output of one element, y = bf16(rstd * (x - mean)): two float32 steps, no FMA, then one rounding.
__device__ __forceinline__ float normalized(float x, row_stats s) { return __fmul_rn(s.rstd, __fsub_rn(x, s.mean)); }

__device__ __forceinline__ bf16_bits layer_norm_value(float x, row_stats s) { return bf16_round(normalized(x, s)); }

// A packed pair of bf16 in one 32-bit word, little-endian: element 0 is the low half.
__device__ __forceinline__ float low_half(unsigned int word) { return __uint_as_float(word << 16); }
__device__ __forceinline__ float high_half(unsigned int word) { return __uint_as_float(word & 0xffff0000u); }
__device__ __forceinline__ bf16_bits low_bits(unsigned int word) { return static_cast<bf16_bits>(word & 0xffffu); }
__device__ __forceinline__ bf16_bits high_bits(unsigned int word) { return static_cast<bf16_bits>(word >> 16); }
__device__ __forceinline__ unsigned int pack_bf16x2(bf16_bits lo, bf16_bits hi) {
  return static_cast<unsigned int>(lo) | (static_cast<unsigned int>(hi) << 16);
}

// Packed bf16x2 steps that round once, straight to bf16. For bf16 operands they
// equal the spec's float32 step followed by bf16 rounding: a sum's float32
// result carries 24 >= 2 * 8 + 2 significant bits, so rounding it again to 8
// cannot differ from rounding the exact sum once, and a product of two bf16 is
// exact in float32. A GPU test (kernel_templates/arith_checks.cuh) checks both
// equalities for every pair of bf16 operands, subnormals, infinities, NaNs and
// signed zeros included; the host build computes the float32 form itself. fma.rn.bf16x2 is on sm_80 and newer:
// a + b is fma(a, 1, b), a * b is fma(a, b, -0) (-0 keeps a product's sign).
__device__ __forceinline__ unsigned int bf16x2_round(float lo, float hi) {
#if defined(__CUDA_ARCH__)
  unsigned int r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return pack_bf16x2(bf16_round(lo), bf16_round(hi));
#endif
}

// The spec's float32 forms of the two packed steps, one half at a time.
__device__ __forceinline__ unsigned int bf16x2_add_via_float32(unsigned int a, unsigned int b) {
  return pack_bf16x2(bf16_round(__fadd_rn(low_half(a), low_half(b))),
                     bf16_round(__fadd_rn(high_half(a), high_half(b))));
}

__device__ __forceinline__ unsigned int bf16x2_mul_via_float32(unsigned int a, unsigned int b) {
  return pack_bf16x2(bf16_round(__fmul_rn(low_half(a), low_half(b))),
                     bf16_round(__fmul_rn(high_half(a), high_half(b))));
}

#if defined(__CUDA_ARCH__)
__device__ __forceinline__ unsigned int bf16x2_fma(unsigned int a, unsigned int b, unsigned int c) {
  unsigned int r;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}

__device__ __forceinline__ unsigned int bf16x2_add(unsigned int a, unsigned int b) {
  return bf16x2_fma(a, 0x3f803f80u, b);  // 1.0 in both halves
}

__device__ __forceinline__ unsigned int bf16x2_mul(unsigned int a, unsigned int b) {
  return bf16x2_fma(a, b, 0x80008000u);  // -0.0 in both halves
}
#else
__device__ __forceinline__ unsigned int bf16x2_add(unsigned int a, unsigned int b) {
  return bf16x2_add_via_float32(a, b);
}
__device__ __forceinline__ unsigned int bf16x2_mul(unsigned int a, unsigned int b) {
  return bf16x2_mul_via_float32(a, b);
}
#endif

}  // namespace exactune_kernels
