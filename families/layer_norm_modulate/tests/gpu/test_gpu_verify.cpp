// Verification on the GPU: a clean variant passes, each planted fault is caught
// with a precise first mismatch, and inputs aten would not send to its
// vectorized kernel are refused instead of compared.
#include <fmt/format.h>

#include "catch.hpp"
#include <exactune/error.hpp>
#include <exactune/space.hpp>
#include "gpu/shared_gpu.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_workload.hpp"
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
  const CompileOutcome compiled = compile_all({family.variant_request(v16, shape.size, shared_gpu().target())}, cache)[0];
  REQUIRE(compiled.ok);
  const auto kernel = shared_gpu().load(compiled.kernel);
  CHECK_THROWS_AS(eight_aligned.launch_variant(*kernel, v16), input_error);
}

}  // namespace exactune
