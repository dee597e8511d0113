// The independent oracle of the gated residual family, in CI: exactune's
// reference and a pairwise cover of the variants, run on the CPU, against bits
// PyTorch produced on a GPU (tests/data/torch_golden), both outputs r and y.
// The reference and the variants share kernels/gated_residual.cuh and
// arith.cuh, so comparing them with each other cannot see a change there;
// torch's bits can. Variants are compared with torch's r and y directly, not
// with exactune's reference.
//
// rstd is rsqrtf(var + eps), as in layer_norm_modulate's golden test (whose
// reader and helpers these use): the emulation reads the GPU's rsqrtf from
// the golden windows around each row's var + eps (EXACTUNE_HOST_RSQRTF_TABLE),
// so that the variance over r is checked bit for bit as well.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>

#include <exactune/space.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "gated_residual_layer_norm_modulate/gated_residual_layer_norm_modulate_family.hpp"
#include "gated_residual_layer_norm_modulate/gated_residual_layer_norm_modulate_workload.hpp"
#include "gated_torch_golden.hpp"
#include "layer_norm_modulate/layer_norm_modulate_workload.hpp"
#include "space/pairwise_cover.hpp"
#include "space/selection.hpp"
#include "support/cpu_verification.hpp"
#include "support/torch_golden_data.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;
using exactune_test::bits32;
using exactune_test::GatedTorchGolden;
using exactune_test::golden_difference;
using exactune_test::ScopedRsqrtfTable;
using exactune_test::TorchExpectedWorkload;
using exactune_test::TorchGoldenCase;

namespace {

const GatedTorchGolden& golden() {
  static const GatedTorchGolden g =
      exactune_test::read_gated_torch_golden(std::string(EXACTUNE_TEST_DATA_DIR) + "/torch_golden");
  return g;
}

const KernelFamily& gated() { return gated_residual_layer_norm_modulate_family(); }

std::vector<std::uint32_t> golden_windows() { return exactune_test::rsqrtf_pairs(golden().modulate); }

struct CpuSetup {
  CompileCache cache{CompileCache::default_directory()};
  CpuBackend cpu{2};
  SupportKernels support = load_support_kernels(gated(), cpu, cache);
};

CpuSetup& setup() {
  static CpuSetup s;
  return s;
}

// torch's r, then its y: the gated workload's outputs in order.
std::vector<std::uint16_t> torch_outputs(const TorchGoldenCase& c) {
  std::vector<std::uint16_t> both = golden().residual_of(c).r;
  both.insert(both.end(), c.out.begin(), c.out.end());
  return both;
}

// Each golden shape's one input case: torch's inputs, with torch's r and y expected.
RecordedInputs torch_inputs() {
  return RecordedInputs{
      [](const Shape&) {
        return std::vector<InputCase>{{"torch", "torch's own inputs and outputs"}};
      },
      [](Backend& backend, const SupportKernels& support, const Shape& shape, const InputCase&) {
        const TorchGoldenCase& c = golden().modulate.find(shape.name);
        return std::unique_ptr<Workload>(std::make_unique<TorchExpectedWorkload>(
            backend, std::make_unique<GatedResidualWorkload>(backend, support, shape, golden().inputs(c)),
            torch_outputs(c)));
      }};
}

// mean and rstd of the LayerNorm over torch's r, by the reference chain after the residual.
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> statistics_of_torch_r(const TorchGoldenCase& c) {
  TorchGoldenCase on_r = c;
  on_r.x = golden().residual_of(c).r;
  LayerNormModulateWorkload w(setup().cpu, setup().support, golden().shape(c), golden().modulate.inputs(on_r));
  w.launch_reference();
  return {bits32(w.download_mean()), bits32(w.download_rstd())};
}

}  // namespace

TEST_CASE("gated torch golden data: cases at every hidden size, r unlike x, windows holding torch's rstd",
          "[gated_torch_golden]") {
  INFO(golden().modulate.source);
  CHECK(golden().gate_row == kGateEmbeddingRow);
  std::set<int> sizes;
  for (const TorchGoldenCase& c : golden().cases()) sizes.insert(c.hidden);
  CHECK(sizes == std::set<int>{72, 1536, 2240, 3072, 5120});
  CHECK(golden().cases().size() >= 4 * sizes.size());
  const std::size_t rows = static_cast<std::size_t>(golden().modulate.rows());
  const std::size_t window = golden().cases().front().rsqrt_window.size() / 2 / rows;
  for (const TorchGoldenCase& c : golden().cases()) {
    INFO(c.name);
    CHECK(golden().residual_of(c).r != c.x);
    for (std::size_t row = 0; row < rows; ++row) {
      bool found = false;
      for (std::size_t k = 0; k < window; ++k) found |= c.rsqrt_window[(row * window + k) * 2 + 1] == c.rstd[row];
      INFO("row " << row);
      CHECK(found);
    }
  }
}

TEST_CASE("the reference reproduces torch's r, the statistics over it and the eager chain y bit for bit",
          "[gated_torch_golden]") {
  INFO(golden().modulate.source);
  ScopedRsqrtfTable table(golden_windows());
  for (const TorchGoldenCase& c : golden().cases()) {
    INFO("case " << c.name);
    GatedResidualWorkload w(setup().cpu, setup().support, golden().shape(c), golden().inputs(c));
    w.launch_reference();
    const std::vector<std::uint16_t> ours = w.download_reference_output();
    const std::vector<std::uint16_t>& r = golden().residual_of(c).r;
    CHECK(golden_difference(r, std::vector<std::uint16_t>(ours.begin(), ours.begin() + r.size()), c.hidden) == "");
    CHECK(golden_difference(c.out, std::vector<std::uint16_t>(ours.begin() + r.size(), ours.end()), c.hidden) == "");
    const auto [mean, rstd] = statistics_of_torch_r(c);
    CHECK(golden_difference(c.mean, mean, 1) == "");
    CHECK(golden_difference(c.rstd, rstd, 1) == "");
  }
}

// At each golden size a pairwise cover of the valid variants (space/pairwise_cover.hpp):
// every pair of lever values meets torch's r and y here. Every variant is
// verified against the reference on the CPU at Sana's size
// (test_gated_cpu_exactness.cpp), and at every size it is timed at on the GPU.
TEST_CASE("a pairwise cover of the valid variants at each golden size reproduces torch's r and y bit for bit, all rows",
          "[gated_torch_golden]") {
  INFO(golden().modulate.source);
  ScopedRsqrtfTable table(golden_windows());
  std::vector<Shape> shapes;
  std::map<int, std::vector<Variant>> cover;
  std::set<ShapeVariant> pairs;
  std::size_t expected_builds = 0;
  for (const TorchGoldenCase& c : golden().cases()) {
    shapes.push_back(golden().shape(c));
    if (!cover.count(c.hidden)) {
      const std::vector<Variant> valid = valid_variants(gated(), c.hidden);
      cover[c.hidden] = pairwise_cover(valid);
      CHECK(cover[c.hidden].size() < valid.size());
      expected_builds += cover[c.hidden].size();
    }
    for (const Variant& v : cover[c.hidden]) pairs.insert({shapes.back().name, v.name});
  }
  VerifyStageOptions options;
  options.selection = Selection(pairs);
  options.verify.recorded_inputs = torch_inputs();
  const VerifyStageResult result =
      run_verify_stage(gated(), setup().cpu, setup().support, shapes, setup().cache, options);
  CHECK(result.builds.size() == expected_builds);
  CHECK(result.records.size() == pairs.size());
  exactune_test::require_all_exact(gated(), result);
}

// The comparisons above can fail: with a fault planted in the residual's
// arithmetic (kernels/gated_residual.cuh: 9, one FMA; 10, the product not
// rounded to bf16), every variant misses torch's r. Without the rsqrtf
// windows, as a wrong r's var + eps lies outside them and the launch would
// fail before any comparison; the variants are test_gated_cpu_exactness.cpp's.
TEST_CASE("faults in the residual's arithmetic miss torch's r in every variant, at every Sana-sized case",
          "[gated_torch_golden]") {
  std::vector<Shape> shapes;
  for (const TorchGoldenCase& c : golden().cases()) {
    if (c.hidden == 2240) shapes.push_back(golden().shape(c));
  }
  REQUIRE(shapes.size() >= 4);
  for (int fault : {9, 10}) {
    INFO("planted fault " << fault);
    VerifyStageOptions options;
    options.variant_glob = "w*_r1_predicated_v8_*_rcp_late_*_full";
    options.variant_defines = {fmt::format("EXACTUNE_PLANTED_FAULT={}", fault)};
    options.verify.recorded_inputs = torch_inputs();
    const VerifyStageResult result =
        run_verify_stage(gated(), setup().cpu, setup().support, shapes, setup().cache, options);
    REQUIRE(result.builds.size() >= 8);
    CHECK(result.records.size() == result.builds.size() * shapes.size());
    for (const VerifyRecord& r : result.records) {
      INFO(r.shape << " " << r.variant << ": " << r.message);
      CHECK(r.disposition == Disposition::incorrect);
      REQUIRE(r.first_mismatch);
      CHECK(r.first_mismatch->output == "r");
    }
  }
}
