// The independent oracle, in CI: exactune's reference and a pairwise cover of
// the variants, run on the CPU, against bits PyTorch produced on a GPU
// (tests/data/torch_golden).
// The reference and the variants share arith.cuh, so comparing them with each
// other cannot see a change there; torch's bits can. Variants are compared with
// torch's output directly, not with exactune's reference.
//
// rstd is rsqrtf(var + eps), the GPU's approximate instruction, which the host
// cannot compute. Rather than injecting torch's rstd per row (which would leave
// var unchecked), the golden data holds the GPU's rsqrtf at the 33 floats around
// each row's var + eps, and the emulation reads rsqrtf from them
// (EXACTUNE_HOST_RSQRTF_TABLE): the CPU's var + eps must land in the window and
// give torch's rstd, so the variance is checked bit for bit as well.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <set>

#include <exactune/space.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_workload.hpp"
#include "space/pairwise_cover.hpp"
#include "space/selection.hpp"
#include "support/cpu_verification.hpp"
#include "support/torch_golden_data.hpp"
#include "torch_golden.hpp"
#include "verify/bf16_compare.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;
using exactune_test::bits32;
using exactune_test::golden_difference;
using exactune_test::TorchExpectedWorkload;
using exactune_test::TorchGolden;
using exactune_test::TorchGoldenCase;

namespace {

const TorchGolden& golden() {
  static const TorchGolden g = exactune_test::read_torch_golden(std::string(EXACTUNE_TEST_DATA_DIR) + "/torch_golden");
  return g;
}

// The golden windows as EXACTUNE_HOST_RSQRTF_TABLE, or `pairs` when given.
class RsqrtfTable : public exactune_test::ScopedRsqrtfTable {
 public:
  explicit RsqrtfTable(const std::vector<std::uint32_t>* pairs = nullptr)
      : ScopedRsqrtfTable(pairs == nullptr ? exactune_test::rsqrtf_pairs(golden()) : *pairs) {}
};

struct CpuSetup {
  CompileCache cache{CompileCache::default_directory()};
  CpuBackend cpu{2};
  SupportKernels support = load_support_kernels(layer_norm_modulate_family(), cpu, cache);
};

CpuSetup& setup() {
  static CpuSetup s;
  return s;
}

struct ReferenceRun {
  std::vector<std::uint32_t> mean, rstd;
  std::vector<std::uint16_t> layer_norm, out;
};

ReferenceRun run_reference(const TorchGoldenCase& c) {
  LayerNormModulateWorkload w(setup().cpu, setup().support, golden().shape(c), golden().inputs(c));
  w.launch_reference();
  return {bits32(w.download_mean()), bits32(w.download_rstd()), w.download_layer_norm_output(),
          w.download_reference_output()};
}

}  // namespace

TEST_CASE("torch golden data: cases at every hidden size the issue names, with windows holding torch's rstd",
          "[torch_golden]") {
  INFO(golden().source);
  std::set<int> sizes;
  for (const TorchGoldenCase& c : golden().cases) sizes.insert(c.hidden);
  CHECK(sizes == std::set<int>{4, 64, 400, 2240, 2244, 4096});
  CHECK(golden().cases.size() >= 4 * sizes.size());
  const std::size_t window = golden().cases.front().rsqrt_window.size() / 2 / golden().rows();
  for (const TorchGoldenCase& c : golden().cases) {
    for (int row = 0; row < golden().rows(); ++row) {
      bool found = false;
      for (std::size_t k = 0; k < window; ++k) found |= c.rsqrt_window[(row * window + k) * 2 + 1] == c.rstd[row];
      INFO(c.name << " row " << row);
      CHECK(found);
    }
  }
}

TEST_CASE("the reference reproduces torch's mean, rstd, LayerNorm output and eager chain bit for bit",
          "[torch_golden]") {
  INFO(golden().source);
  RsqrtfTable table;
  for (const TorchGoldenCase& c : golden().cases) {
    INFO("case " << c.name);
    const ReferenceRun ours = run_reference(c);
    CHECK(golden_difference(c.mean, ours.mean, 1) == "");
    CHECK(golden_difference(c.rstd, ours.rstd, 1) == "");
    CHECK(golden_difference(c.layer_norm, ours.layer_norm, c.hidden) == "");
    CHECK(golden_difference(c.out, ours.out, c.hidden) == "");
  }
}

// At each golden size a pairwise cover of the valid variants (space/pairwise_cover.hpp):
// every pair of lever values meets torch's bits here. Every variant is verified
// against the reference on the CPU at a size outside the golden data
// (test_cpu_exactness.cpp), and at every size it is timed at on the GPU.
TEST_CASE(
    "a pairwise cover of the valid variants at each golden size reproduces torch's eager chain bit for bit, "
    "all rows",
    "[torch_golden]") {
  INFO(golden().source);
  RsqrtfTable table;
  std::vector<Shape> shapes;
  std::map<int, std::vector<Variant>> cover;
  std::set<ShapeVariant> pairs;
  std::size_t expected_builds = 0;
  for (const TorchGoldenCase& c : golden().cases) {
    shapes.push_back(golden().shape(c));
    if (!cover.count(c.hidden)) {
      const std::vector<Variant> valid = valid_variants(layer_norm_modulate_family(), c.hidden);
      cover[c.hidden] = pairwise_cover(valid);
      CHECK(cover[c.hidden].size() < valid.size());
      expected_builds += cover[c.hidden].size();
    }
    for (const Variant& v : cover[c.hidden]) pairs.insert({shapes.back().name, v.name});
  }
  VerifyStageOptions options;
  options.selection = Selection(pairs);
  options.verify.recorded_inputs = RecordedInputs{
      [](const Shape&) {
        return std::vector<InputCase>{{"torch", "torch's own inputs and output"}};
      },
      [](Backend& backend, const SupportKernels& support, const Shape& shape, const InputCase&) {
        const TorchGoldenCase& c = golden().find(shape.name);
        return std::unique_ptr<Workload>(std::make_unique<TorchExpectedWorkload>(
            backend, std::make_unique<LayerNormModulateWorkload>(backend, support, shape, golden().inputs(c)), c.out));
      }};
  const VerifyStageResult result =
      run_verify_stage(layer_norm_modulate_family(), setup().cpu, setup().support, shapes, setup().cache, options);
  CHECK(result.builds.size() == expected_builds);
  CHECK(result.records.size() == pairs.size());
  exactune_test::require_all_exact(layer_norm_modulate_family(), result);
}

// The comparisons above can fail: with the host's correctly rounded 1/sqrt
// instead of the GPU's rsqrtf, torch's rstd is missed in some rows.
TEST_CASE("without the GPU's rsqrtf the host recipe misses torch's rstd in some rows", "[torch_golden]") {
  std::size_t rows = 0, missed = 0;
  for (const TorchGoldenCase& c : golden().cases) {
    const ReferenceRun ours = run_reference(c);
    for (std::size_t r = 0; r < c.rstd.size(); ++r) missed += ours.rstd[r] != c.rstd[r];
    rows += c.rstd.size();
  }
  INFO(missed << " of " << rows << " rows");
  CHECK(missed > 0);
  CHECK(missed < rows);
}

TEST_CASE("an rsqrtf input missing from EXACTUNE_HOST_RSQRTF_TABLE fails the launch, naming it", "[torch_golden]") {
  const std::vector<std::uint32_t> one_pair = {0x3f800000u, 0x3f800000u};  // rsqrtf(1) = 1, nothing else
  RsqrtfTable table(&one_pair);
  try {
    run_reference(golden().cases.front());
    FAIL("the launch did not fail");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("not in EXACTUNE_HOST_RSQRTF_TABLE") != std::string::npos);
  }
}
