// The equalities arith.cuh relies on, checked on the GPU over every 32-bit
// pattern (kernel_templates/arith_checks.cuh): the host's integer bf16 rounding
// against cvt.rn, and the packed bf16x2 steps of `elementwise: bf16x2` against
// the spec's float32 steps, for every pair of bf16 operands.
#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "catch.hpp"
#include "compile/compile_cache.hpp"
#include "compile/compiler.hpp"
#include "support/shared_gpu.hpp"

namespace exactune {
namespace {

constexpr int kChecks = 4;
constexpr const char* kCheckNames[kChecks] = {
    "cvt.rn.bf16.f32 = the host's integer rounding, every float",
    "cvt.rn.bf16x2.f32 = two scalar roundings, every float pair (i, ~i)",
    "bf16x2_add = bf16(float32 a + b), every bf16 pair",
    "bf16x2_mul = bf16(float32 a * b), every bf16 pair",
};

// arith_check_result as the kernel lays it out.
struct CheckResult {
  std::uint64_t disagreements[kChecks];
  std::uint32_t example_found[kChecks];
  std::uint32_t example_input[kChecks];
  std::uint32_t example_got[kChecks];
  std::uint32_t example_expected[kChecks];
};
static_assert(sizeof(CheckResult) == 8 * kChecks + 16 * kChecks, "the kernel's layout, without padding");

}  // namespace

TEST_CASE("the packed bf16x2 steps and both bf16 roundings agree for every input", "[gpu][arith]") {
  GpuBackend& gpu = shared_gpu();
  const CompileCache cache(CompileCache::default_directory());
  const CompileOutcome compiled = compile_all(
      {{"arith_checks", "kernel_templates/arith_checks.cuh", "&exactune_kernels::arith_checks", gpu.target(), {}}},
      cache)[0];
  INFO(compiled.log);
  REQUIRE(compiled.ok);
  const auto kernel = gpu.load(compiled.kernel);

  DeviceBuffer result(gpu, sizeof(CheckResult));
  gpu.fill(result.address(), 0x00, result.bytes());
  DeviceAddress result_address = result.address();
  void* args[] = {&result_address};
  gpu.launch(*kernel, LaunchGeometry{{4096}, {256}}, args);
  gpu.synchronize();
  CheckResult r;
  gpu.download(&r, result.address(), sizeof r);

  std::uint64_t total = 0;
  for (int c = 0; c < kChecks; ++c) total += r.disagreements[c];
  fmt::print(
      "arith_checks: {} checks over all 2^32 inputs each (bf16 rounding, packed rounding, bf16x2 add, bf16x2 "
      "mul): {} disagreements\n",
      kChecks, total);
  for (int c = 0; c < kChecks; ++c) {
    INFO(kCheckNames[c]);
    INFO(fmt::format("{} disagreements; e.g. input {:#010x}: got {:#010x}, expected {:#010x}", r.disagreements[c],
                     r.example_input[c], r.example_got[c], r.example_expected[c]));
    CHECK(r.disagreements[c] == 0);
  }
}

}  // namespace exactune
