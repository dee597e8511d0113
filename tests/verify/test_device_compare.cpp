// The verifier's comparison on the device (kernel_templates/compare_bits.cuh),
// run by the CPU backend from the same source a GPU runs: it must count every
// differing element and find the first, bit for bit, exactly as the host's
// compare_bf16 does over downloaded outputs; the host atomics it relies on must
// be atomic across the OS threads that run a grid's blocks; and the verifier
// built on it must report an incorrect variant in the very words it used when
// it downloaded whole outputs, shown with the toy family's right variant and
// its planted_wrong one (tests/toy_family).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include <exactune/kernel_sources.hpp>
#include <exactune/space.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "compile/compile_cache.hpp"
#include "compile/compiler.hpp"
#include "shapes/shape_file.hpp"
#include "space/compile_plan.hpp"
#include "toy_family/toy_family.hpp"
#include "verify/bf16_compare.hpp"
#include "verify/device_compare.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;

namespace {

const CompileCache& cache() {
  static const CompileCache c(CompileCache::default_directory());
  return c;
}

// Four OS threads: blocks of one grid run at the same time, so the summary's
// atomics race for real.
CpuBackend& cpu() {
  static CpuBackend backend(4);
  return backend;
}

const LoadedKernel& compare_kernel() {
  static const std::unique_ptr<LoadedKernel> kernel = [] {
    const CompileOutcome compiled = compile_all({compare_bits_request("host")}, cache()).at(0);
    INFO(compiled.log);
    REQUIRE(compiled.ok);
    return cpu().load(compiled.kernel);
  }();
  return *kernel;
}

// Two outputs on the device: the reference's and a variant's.
struct Outputs {
  DeviceBuffer reference, output;
  std::int64_t elements;

  Outputs(const std::vector<std::uint16_t>& expected, const std::vector<std::uint16_t>& actual)
      : reference(cpu(), padded_bytes(static_cast<std::int64_t>(expected.size()), 2)),
        output(cpu(), padded_bytes(static_cast<std::int64_t>(actual.size()), 2)),
        elements(static_cast<std::int64_t>(expected.size())) {
    cpu().upload(reference.address(), expected.data(), expected.size() * 2);
    cpu().upload(output.address(), actual.data(), actual.size() * 2);
  }
  OutputRegion region() const { return {output.address(), reference.address(), elements}; }
};

ComparisonResult compare_on_device(const std::vector<std::uint16_t>& expected, const std::vector<std::uint16_t>& actual,
                                   std::int64_t row_length) {
  const Outputs outputs(expected, actual);
  DeviceComparer comparer(cpu(), compare_kernel());
  return comparer.compare({outputs.region()}, row_length);
}

std::vector<std::uint16_t> random_bf16(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint16_t> values(n);
  for (std::uint16_t& v : values) v = static_cast<std::uint16_t>(0x3c00 + rng() % 0x0800);
  return values;
}

void check_same_mismatch(const std::optional<Mismatch>& device, const std::optional<Mismatch>& host) {
  REQUIRE(device.has_value() == host.has_value());
  if (!device) return;
  CHECK(device->row == host->row);
  CHECK(device->column == host->column);
  CHECK(device->expected == host->expected);
  CHECK(device->actual == host->actual);
  CHECK(device->ulps == host->ulps);
}

}  // namespace

TEST_CASE("the device compare finds no mismatch between equal outputs", "[device_compare]") {
  const std::vector<std::uint16_t> values = random_bf16(10007, 1);
  const ComparisonResult r = compare_on_device(values, values, 100);
  CHECK(r.mismatches == 0);
  CHECK_FALSE(r.first.has_value());
}

TEST_CASE("the device compare reports one mismatch at its row and column with both values and the ulps",
          "[device_compare]") {
  std::vector<std::uint16_t> expected = random_bf16(10007, 2);
  expected[357] = 0x3f80;  // 1
  std::vector<std::uint16_t> actual = expected;
  actual[357] = 0x3f82;  // 1.015625: two steps up
  const ComparisonResult r = compare_on_device(expected, actual, 100);
  CHECK(r.mismatches == 1);
  REQUIRE(r.first.has_value());
  CHECK(r.first->row == 3);
  CHECK(r.first->column == 57);
  CHECK(r.first->expected == 0x3f80);
  CHECK(r.first->actual == 0x3f82);
  CHECK(r.first->ulps == 2);
  CHECK(describe(*r.first) == "row 3, column 57: expected 0x3f80 (1), got 0x3f82 (1.015625), 2 ulp");
}

TEST_CASE("the device compare counts every one of many mismatches and reports the lowest index first",
          "[device_compare]") {
  // Many blocks' worth of elements, and mismatches in most blocks, the first
  // well past block 0: the atomics of blocks finishing in any order must agree.
  const std::size_t n = 300'001;
  const std::vector<std::uint16_t> expected = random_bf16(n, 3);
  std::vector<std::uint16_t> actual = expected;
  std::mt19937_64 rng(4);
  for (int k = 0; k < 5000; ++k)
    actual[50'000 + rng() % (n - 50'000)] ^= static_cast<std::uint16_t>(1u << (rng() % 16));
  const ComparisonResult host = compare_bf16(expected, actual, 2240);
  REQUIRE(host.mismatches > 4000);
  const ComparisonResult device = compare_on_device(expected, actual, 2240);
  CHECK(device.mismatches == host.mismatches);
  check_same_mismatch(device.first, host.first);
}

TEST_CASE("an output in two regions is compared as one: indexes run on across the second", "[device_compare]") {
  const std::vector<std::uint16_t> q = random_bf16(1004, 5), k = random_bf16(996, 6);
  std::vector<std::uint16_t> k_wrong = k;
  k_wrong[10] ^= 0x8000;
  k_wrong[900] ^= 1;
  const Outputs q_outputs(q, q), k_outputs(k, k_wrong);
  DeviceComparer comparer(cpu(), compare_kernel());
  const ComparisonResult r = comparer.compare({q_outputs.region(), k_outputs.region()}, 4);
  CHECK(r.mismatches == 2);
  REQUIRE(r.first.has_value());
  CHECK(r.first->row == (1004 + 10) / 4);
  CHECK(r.first->column == (1004 + 10) % 4);
  CHECK(r.first->expected == k[10]);
  CHECK(r.first->actual == k_wrong[10]);
  CHECK(total_elements({q_outputs.region(), k_outputs.region()}) == 2000);
}

// A workload of two outputs (e.g. a residual r and a normalised y) names them:
// both are compared, and the first mismatch says which output it is in, its
// row counted from that output's start, also where the first output is in pieces.
TEST_CASE("outputs of several names are all compared, and a mismatch names its output and its row in it",
          "[device_compare]") {
  const std::vector<std::uint16_t> r_low = random_bf16(600, 7), r_high = random_bf16(400, 8), y = random_bf16(1000, 9);
  std::vector<std::uint16_t> y_wrong = y;
  y_wrong[10] ^= 1;
  y_wrong[900] ^= 0x8000;
  const Outputs r_low_outputs(r_low, r_low), r_high_outputs(r_high, r_high), y_outputs(y, y_wrong);
  auto named = [](OutputRegion region, const char* name) {
    region.output_name = name;
    return region;
  };
  const std::vector<OutputRegion> regions = {named(r_low_outputs.region(), "r"), named(r_high_outputs.region(), "r"),
                                             named(y_outputs.region(), "y")};
  DeviceComparer comparer(cpu(), compare_kernel());
  const ComparisonResult in_y = comparer.compare(regions, 4);
  CHECK(in_y.mismatches == 2);
  REQUIRE(in_y.first.has_value());
  CHECK(in_y.first->output == "y");
  CHECK(in_y.first->row == 10 / 4);
  CHECK(in_y.first->column == 10 % 4);
  CHECK(in_y.first->expected == y[10]);
  CHECK(in_y.first->actual == y_wrong[10]);
  CHECK(describe(*in_y.first).rfind("output y, row 2, column 2: expected", 0) == 0);

  // A mismatch in the second piece of r: its row runs on from the first piece.
  std::vector<std::uint16_t> r_high_wrong = r_high;
  r_high_wrong[5] ^= 1;
  const Outputs r_high_wrong_outputs(r_high, r_high_wrong);
  const ComparisonResult in_r = comparer.compare(
      {named(r_low_outputs.region(), "r"), named(r_high_wrong_outputs.region(), "r"), named(y_outputs.region(), "y")},
      4);
  CHECK(in_r.mismatches == 3);
  REQUIRE(in_r.first.has_value());
  CHECK(in_r.first->output == "r");
  CHECK(in_r.first->row == (600 + 5) / 4);
  CHECK(in_r.first->column == (600 + 5) % 4);
}

TEST_CASE("the device compare tells signed zeros and NaN patterns apart by their bits", "[device_compare]") {
  //                                         +0 vs -0, qNaN vs other NaN, the same NaN, inf vs NaN
  const std::vector<std::uint16_t> expected = {0x0000, 0x7fc0, 0xffc1, 0x7f80};
  const std::vector<std::uint16_t> actual = {0x8000, 0x7fff, 0xffc1, 0x7fc0};
  const ComparisonResult r = compare_on_device(expected, actual, 4);
  CHECK(r.mismatches == 3);
  REQUIRE(r.first.has_value());
  CHECK(r.first->column == 0);
  CHECK(r.first->ulps == 1);  // +0 and -0 are one step apart
  const ComparisonResult nan_first = compare_on_device({0x7fc0, 0x0000}, {0x7fff, 0x0000}, 2);
  CHECK(nan_first.mismatches == 1);
  REQUIRE(nan_first.first.has_value());
  CHECK(nan_first.first->ulps == -1);
  CHECK(describe(*nan_first.first).find("NaN involved") != std::string::npos);
}

namespace {

constexpr const char* kAtomicsPath = "tests/device_compare/host_atomics.cuh";
constexpr const char* kAtomicsSource = R"(// Every thread of the grid takes a ticket and offers its index to a minimum.
#pragma once

namespace exactune_kernels {

__global__ void take_tickets(unsigned long long* counters, unsigned long long* tickets) {
  const unsigned long long me = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  tickets[me] = atomicAdd(&counters[0], 1ull);
  atomicMin(&counters[1], 1000000ull + me);
}

}  // namespace exactune_kernels
)";
const bool kAtomicsAdded = add_kernel_source(kAtomicsPath, kAtomicsSource);

}  // namespace

TEST_CASE("the host atomics are atomic across the OS threads that run a grid's blocks", "[device_compare][host_exec]") {
  REQUIRE(kAtomicsAdded);
  const CompileOutcome compiled =
      compile_all({CompileRequest{"take_tickets", kAtomicsPath, "&exactune_kernels::take_tickets", "host", {}}},
                  cache())
          .at(0);
  INFO(compiled.log);
  REQUIRE(compiled.ok);
  const auto kernel = cpu().load(compiled.kernel);
  const unsigned blocks = 64, threads = 128, total = blocks * threads;
  DeviceBuffer counters(cpu(), 16), tickets(cpu(), total * 8);
  const std::uint64_t start[2] = {0, ~0ull};
  cpu().upload(counters.address(), start, sizeof start);
  launch_kernel(cpu(), *kernel, Dim3{blocks, 1, 1}, Dim3{threads, 1, 1}, counters.address(), tickets.address());
  std::uint64_t end[2];
  cpu().download(end, counters.address(), sizeof end);
  std::vector<std::uint64_t> taken(total);
  cpu().download(taken.data(), tickets.address(), total * 8);
  CHECK(end[0] == total);
  CHECK(end[1] == 1000000);
  std::sort(taken.begin(), taken.end());
  for (unsigned i = 0; i < total; ++i) {
    INFO("ticket " << i);
    REQUIRE(taken[i] == i);  // every ticket handed out once: no increment lost or doubled
  }
}

TEST_CASE("the verifier reports a planted fault's record exactly as a comparison of the downloaded outputs words it",
          "[device_compare]") {
  const KernelFamily& family = exactune_test::toy_family();
  // The right variant and the one wrong in the last element of every row: a
  // passed record and an incorrect one.
  const Shape shape =
      parse_shapes(family, "shapes:\n  - {name: device-compare, model: toy, rows: 5, length: 64}\n", "t.yaml")
          .shapes.at(0);
  CpuBackend backend(2);
  const SupportKernels support = load_support_kernels(family, backend, cache());
  VerifyStageOptions options;
  options.variant_glob = "t32_v4_*";
  const VerifyStageResult result = run_verify_stage(family, backend, support, {shape}, cache(), options);
  REQUIRE(result.builds.size() == 2);
  REQUIRE(result.records.size() == 2);
  std::size_t passed = 0, incorrect = 0;
  for (const VerifyRecord& r : result.records) {
    INFO(r.variant << " " << r.input_case << ": " << r.message);
    REQUIRE(r.disposition != Disposition::failed);
    const auto build = std::find_if(result.builds.begin(), result.builds.end(),
                                    [&](const VariantBuild& b) { return b.variant.name == r.variant; });
    REQUIRE(build != result.builds.end());
    REQUIRE(build->outcome.ok);
    const auto kernel = backend.load(build->outcome.kernel);
    // The same run again, compared on the host over both whole outputs.
    const std::vector<InputCase> cases = family.input_cases(shape);
    const auto c =
        std::find_if(cases.begin(), cases.end(), [&](const InputCase& ic) { return ic.name == r.input_case; });
    REQUIRE(c != cases.end());
    const std::unique_ptr<Workload> w =
        family.make_workload(backend, support, shape, *c, case_seed(options.verify.seed, shape.name, c->name));
    w->launch_reference();
    w->poison_output();
    w->launch_variant(*kernel, build->variant);
    const std::vector<std::uint16_t> expected = w->download_reference_output();
    const ComparisonResult host = compare_bf16(expected, w->download_output(), w->row_length());
    CHECK(r.mismatches == host.mismatches);
    check_same_mismatch(r.first_mismatch, host.first);
    if (host.exact()) {
      ++passed;
      CHECK(r.disposition == Disposition::passed);
      CHECK(r.message.empty());
      continue;
    }
    ++incorrect;
    CHECK(r.disposition == Disposition::incorrect);
    CHECK(r.message == fmt::format("{} of {} elements differ; first at {}", host.mismatches, expected.size(),
                                   describe(*host.first)));
  }
  CHECK(passed == 1);
  CHECK(incorrect == 1);
}
