// Exhaustive checks of arith.cuh's equalities, run by the GPU suite: over every
// 32-bit pattern i, each claimed equality is evaluated both ways and
// disagreements are counted, with the first one kept as an example.
//   check 0  cvt.rn.bf16.f32 equals the integer rounding the host build uses (i: a float)
//   check 1  cvt.rn.bf16x2.f32 equals two scalar roundings (i and ~i: two floats)
//   check 2  bf16x2_add equals bf16(float32 sum) (i: the bf16 pair a = i >> 16, b = i & 0xffff)
//   check 3  bf16x2_mul equals bf16(float32 product) (same pairs)
// Checks 2 and 3 put (a, b) in the low halves and (b, a) in the high halves, so
// both halves see every ordered pair.
#pragma once
#include "kernel_templates/arith.cuh"

namespace exactune_kernels {

constexpr int kArithChecks = 4;

struct arith_check_result {
  unsigned long long disagreements[kArithChecks];
  unsigned int example_found[kArithChecks];
  unsigned int example_input[kArithChecks];
  unsigned int example_got[kArithChecks];
  unsigned int example_expected[kArithChecks];
};

__device__ __forceinline__ void record_disagreement(arith_check_result* result, int check, unsigned int input,
                                                    unsigned int got, unsigned int expected) {
  atomicAdd(&result->disagreements[check], 1ull);
  if (atomicExch(&result->example_found[check], 1u) == 0u) {
    result->example_input[check] = input;
    result->example_got[check] = got;
    result->example_expected[check] = expected;
  }
}

__global__ void arith_checks(arith_check_result* result) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long n = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; n < (1ull << 32);
       n += stride) {
    const unsigned int i = static_cast<unsigned int>(n);
    const float f = __uint_as_float(i), g = __uint_as_float(~i);

    const unsigned int rounded = bf16_round(f), integer = bf16_round_integer(f);
    if (rounded != integer) record_disagreement(result, 0, i, rounded, integer);

    const unsigned int packed = bf16x2_round(f, g), scalar = pack_bf16x2(bf16_round(f), bf16_round(g));
    if (packed != scalar) record_disagreement(result, 1, i, packed, scalar);

    const unsigned int a = i >> 16, b = i & 0xffffu;
    const unsigned int ab = a | (b << 16), ba = b | (a << 16);
    const unsigned int sum = bf16x2_add(ab, ba), float32_sum = bf16x2_add_via_float32(ab, ba);
    if (sum != float32_sum) record_disagreement(result, 2, i, sum, float32_sum);
    const unsigned int product = bf16x2_mul(ab, ba), float32_product = bf16x2_mul_via_float32(ab, ba);
    if (product != float32_product) record_disagreement(result, 3, i, product, float32_product);
  }
}

}  // namespace exactune_kernels
