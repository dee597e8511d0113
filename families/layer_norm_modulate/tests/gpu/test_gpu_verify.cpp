// Verification on the GPU: a clean variant passes, each planted fault is caught
// with a precise first mismatch, and inputs aten would not send to its
// vectorized kernel are refused instead of compared.
#include <fmt/format.h>

#include <exactune/error.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_workload.hpp"
#include "shapes/shape_file.hpp"
#include "support/shared_gpu.hpp"
#include "verify/device_compare.hpp"
#include "verify/verify_stage.hpp"

namespace exactune {
namespace {

Shape sana_rows(int rows) {  // hidden 2240
  const KernelFamily& family = layer_norm_modulate_family();
  return first_rows(family, default_shapes(family).shapes.at(0), rows);
}

VerifyStageResult verify_on_gpu(const std::string& glob, const std::vector<std::string>& defines) {
  const KernelFamily& family = layer_norm_modulate_family();
  const CompileCache cache(CompileCache::default_directory());
  VerifyStageOptions options;
  options.variant_glob = glob;
  options.variant_defines = defines;
  return run_verify_stage(family, shared_gpu(), load_support_kernels(family, shared_gpu(), cache), {sana_rows(512)},
                          cache, options);
}

}  // namespace

TEST_CASE("clean variants pass every case on the GPU", "[gpu][verify]") {
  const VerifySummary s = summarize(verify_on_gpu("w*_r1_*", {}).records);
  CHECK(s.records > 0);
  CHECK(s.all_passed());
}

TEST_CASE("each planted fault is caught with a precise first mismatch", "[gpu][verify]") {
  for (int fault : {1, 2, 3}) {
    INFO("planted fault " << fault);
    const VerifyStageResult r = verify_on_gpu("w2_r1_*_v8_reload_*", {fmt::format("EXACTUNE_PLANTED_FAULT={}", fault)});
    const VerifySummary s = summarize(r.records);
    CHECK(s.incorrect > 0);
    for (const VerifyRecord& record : r.records) {
      if (record.disposition != Disposition::incorrect) continue;
      REQUIRE(record.first_mismatch);
      CHECK(record.first_mismatch->expected != record.first_mismatch->actual);
      CHECK(record.message.find("first at row") != std::string::npos);
      fmt::print("planted fault {} caught: {} {}: {}\n", fault, record.variant, record.input_case, record.message);
      break;
    }
  }
}

TEST_CASE("the compare kernel counts and locates mismatches on the GPU exactly as the host does", "[gpu][verify]") {
  const KernelFamily& family = layer_norm_modulate_family();
  const SupportKernels support =
      load_support_kernels(family, shared_gpu(), CompileCache(CompileCache::default_directory()));
  DeviceComparer comparer(shared_gpu(), support.get(kCompareBitsKernel));
  const std::size_t n = 4608 * 3072 + 3;  // the largest default output, and a ragged end
  std::vector<std::uint16_t> expected(n), actual(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<std::uint16_t>(0x3c00 + (i * 2654435761u) % 0x0800);
  actual = expected;
  for (std::size_t i = 1'000'003; i < n; i += 7919) actual[i] ^= 0x8000;  // signed zeros and signs differ too
  actual[n - 1] ^= 1;
  DeviceBuffer reference(shared_gpu(), padded_bytes(n, 2)), output(shared_gpu(), padded_bytes(n, 2));
  shared_gpu().upload(reference.address(), expected.data(), n * 2);
  shared_gpu().upload(output.address(), expected.data(), n * 2);
  const OutputRegion region{output.address(), reference.address(), static_cast<std::int64_t>(n)};
  CHECK(comparer.compare({region}, 3072).exact());
  shared_gpu().upload(output.address(), actual.data(), n * 2);
  const ComparisonResult host = compare_bf16(expected, actual, 3072);
  const ComparisonResult device = comparer.compare({region}, 3072);
  CHECK(device.mismatches == host.mismatches);
  REQUIRE(device.first.has_value());
  REQUIRE(host.first.has_value());
  CHECK(describe(*device.first) == describe(*host.first));
}

TEST_CASE("a misaligned x is refused, not compared", "[gpu][verify]") {
  const KernelFamily& family = layer_norm_modulate_family();
  const CompileCache cache(CompileCache::default_directory());
  const SupportKernels support = load_support_kernels(family, shared_gpu(), cache);
  const Shape shape = sana_rows(4);
  const ModulateInputs inputs = make_modulate_inputs(shape, modulate_cases(ModulateProblem::of(shape).eps).front(), 7);
  LayerNormModulateWorkload misaligned(shared_gpu(), support, shape, inputs, /*x_offset_bytes=*/2);
  try {
    misaligned.launch_reference();
    FAIL("a misaligned x was accepted");
  } catch (const input_error& e) {
    CHECK(std::string(e.what()).find("not 8-byte aligned") != std::string::npos);
  }
  LayerNormModulateWorkload eight_aligned(shared_gpu(), support, shape, inputs, /*x_offset_bytes=*/8);
  const Variant v16 = valid_variants(family, shape.size).back();
  REQUIRE(LayerNormModulateConfig::from(v16).vector_bytes == 16);
  const CompileOutcome compiled =
      compile_all({family.variant_request(v16, shape.size, shared_gpu().target())}, cache)[0];
  REQUIRE(compiled.ok);
  const auto kernel = shared_gpu().load(compiled.kernel);
  CHECK_THROWS_AS(eight_aligned.launch_variant(*kernel, v16), input_error);
}

}  // namespace exactune
