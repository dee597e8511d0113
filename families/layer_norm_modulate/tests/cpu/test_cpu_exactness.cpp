// The whole variant space, executed on the CPU from the same template source,
// against the CPU-run reference: a reordered floating-point operation in any
// variant fails here, in CI, without a GPU.
#include <fmt/format.h>

#include <cstdlib>
#include <set>
#include <string>

#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "shapes/shape_file.hpp"
#include "support/cpu_verification.hpp"
#include "torch_golden.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;

namespace {

// Two batches, so that scale/shift rows change with the batch; 5 rows, so that
// CTAs of 2, 4 and 8 rows are left partly empty.
Shape small_shape(int hidden, int tokens) {
  Shape s = modulate_shape(fmt::format("cpu-d{}", hidden), 2, tokens, hidden, 1e-6, 6);
  s.model = "CPU exactness";
  return s;
}

VerifyStageResult verify_on_cpu(const std::vector<int>& hidden_sizes, const std::string& glob,
                                const std::vector<std::string>& defines = {}, int tokens = 3) {
  std::vector<Shape> shapes;
  for (int d : hidden_sizes) shapes.push_back(small_shape(d, tokens));
  return exactune_test::verify_on_cpu(layer_norm_modulate_family(), shapes, glob, defines);
}

void require_all_exact(const VerifyStageResult& result) {
  exactune_test::require_all_exact(layer_norm_modulate_family(), result);
}

}  // namespace

// The default sizes that the torch golden data holds (2240 and 4096) are the
// golden test's (test_torch_golden.cpp): every valid variant, all rows, against
// torch's own bits, which is the stronger check; running them here as well took
// most of this test's four minutes.
TEST_CASE("every valid variant at the default hidden size outside the golden data is bit-exact on the CPU",
          "[cpu_exactness]") {
  std::set<int> golden_sizes;
  for (const exactune_test::TorchGoldenCase& c :
       exactune_test::read_torch_golden(std::string(EXACTUNE_TEST_DATA_DIR) + "/torch_golden").cases) {
    golden_sizes.insert(c.hidden);
  }
  std::vector<int> sizes;
  for (int hidden : default_shapes(layer_norm_modulate_family()).sizes()) {
    if (golden_sizes.count(hidden) == 0) sizes.push_back(hidden);
  }
  REQUIRE(sizes == std::vector<int>{3072});
  const VerifyStageResult result = verify_on_cpu(sizes, "*");
  CHECK(result.builds.size() == valid_variants(layer_norm_modulate_family(), 3072).size());
  require_all_exact(result);
}

// Per-token modulation (scale and shift (B, S, D), a row per token) is the
// family with one token per batch element: seven tokens, each with its own row
// of a (7, 6, D) embedding, so that a row read for the wrong token shows.
TEST_CASE("per-token modulation is the family at one token a batch element, each token its own rows, bit-exact",
          "[cpu_exactness]") {
  Shape per_token = modulate_shape("cpu-per-token-d3072", 7, 1, 3072, 1e-6, 6);
  per_token.model = "CPU exactness, per-token modulation";
  const VerifyStageResult result = exactune_test::verify_on_cpu(layer_norm_modulate_family(), {per_token}, "w4_*");
  CHECK(result.builds.size() > 20);
  require_all_exact(result);
}

// Packed bf16x2 variants only, at an odd size the torch golden test
// (test_torch_golden.cpp) does not hold: it runs every variant, both elementwise
// forms, at hidden 4, 64, 400, 2240, 2244 and 4096 against torch's own bits.
TEST_CASE("every valid bf16x2 variant at an odd hidden size outside the golden data is bit-exact on the CPU",
          "[cpu_exactness]") {
  require_all_exact(verify_on_cpu({1000}, "*_bf16x2_*"));
}

TEST_CASE("planted faults are caught on the CPU with a first-mismatch report", "[cpu_exactness]") {
  for (int fault : {1, 2, 3}) {
    INFO("planted fault " << fault);
    // A reordered tree changes a rounding in only some rows: give it 128.
    const VerifyStageResult result =
        verify_on_cpu({2240}, "w*_r1_*_late_*_full", {fmt::format("EXACTUNE_PLANTED_FAULT={}", fault)}, 64);
    std::size_t incorrect = 0;
    for (const VerifyRecord& r : result.records) {
      if (r.disposition != Disposition::incorrect) continue;
      ++incorrect;
      REQUIRE(r.first_mismatch);
      CHECK(r.message.find("first at row") != std::string::npos);
    }
    CHECK(incorrect > 0);
  }
}

namespace {

// Runs `body` with the CPU emulation's fibers taking turns in `order` (EXACTUNE_HOST_SCHEDULE).
template <class Body>
auto with_schedule(const char* order, Body body) {
  setenv("EXACTUNE_HOST_SCHEDULE", order, 1);
  struct Restore {
    ~Restore() { unsetenv("EXACTUNE_HOST_SCHEDULE"); }
  } restore;
  return body();
}

std::size_t incorrect_runs(const VerifyStageResult& result) {
  std::size_t incorrect = 0;
  for (const VerifyRecord& r : result.records) incorrect += r.disposition == Disposition::incorrect;
  return incorrect;
}

}  // namespace

// A GPU runs a CTA's warps in no promised order. Round robin lets every warp
// read a row's warp totals before any writes the next row's; under "ahead" the
// first warp runs on into the next row group and overwrites them, which the
// persistent grid's second set of totals exists to prevent (planted fault 4
// takes it away).
TEST_CASE("adversarial schedules: the persistent double buffer is needed, and every variant stays exact",
          "[cpu_exactness]") {
  const std::string persistent = "w2_r1_predicated_v8_registers_rcp_late_bf16x2_persistent";
  const VerifyStageResult faulty =
      with_schedule("ahead", [&] { return verify_on_cpu({2240}, persistent, {"EXACTUNE_PLANTED_FAULT=4"}, 16); });
  CHECK(incorrect_runs(faulty) > 0);
  for (const char* order : {"ahead", "behind", "reverse", "random:7"}) {
    INFO("schedule " << order);
    with_schedule(order, [&] {
      require_all_exact(verify_on_cpu({2240}, "w*_r1_predicated_v8_registers_rcp_*_bf16x2_persistent", {}, 16));
      return 0;
    });
  }
  // A schedule the emulation does not know fails the launch, naming the setting.
  const VerifyStageResult unknown = with_schedule("sideways", [&] { return verify_on_cpu({2240}, persistent, {}, 4); });
  REQUIRE(!unknown.records.empty());
  CHECK(unknown.records.front().disposition != Disposition::passed);
  CHECK(unknown.records.front().message.find("EXACTUNE_HOST_SCHEDULE=sideways") != std::string::npos);
}

// Faults in the fused template's own logic, each where only some variants can
// show it: 5 (chunks in the wrong lane group) needs several lane groups, that
// is fewer than aten's 128 lanes per chunk; 6 (folded counts off by one) needs
// folded counts; 7 (warp totals in the wrong slots) shows in every variant.
// Every variant that can show a fault must, and the others stay exact.
TEST_CASE("faults in the fused template's logic show in every variant that can show them", "[cpu_exactness]") {
  const auto can_show = [](int fault, const Variant& v) {
    const LayerNormModulateConfig c = LayerNormModulateConfig::from(v);
    if (fault == 5) return c.threads_per_row() * c.aten_vectors_per_load() < 128;
    if (fault == 6) return c.folded_counts;
    return true;
  };
  for (int fault : {5, 6, 7}) {
    const VerifyStageResult result = verify_on_cpu({2240}, "w*_r1_predicated_v8_registers_*_late_bf16x2_full",
                                                   {fmt::format("EXACTUNE_PLANTED_FAULT={}", fault)}, 64);
    REQUIRE(result.builds.size() >= 4);
    for (const VariantBuild& b : result.builds) {
      INFO("planted fault " << fault << " in " << b.variant.name);
      REQUIRE(b.outcome.ok);
      std::size_t incorrect = 0;
      for (const VerifyRecord& r : result.records) {
        if (r.variant == b.variant.name) incorrect += r.disposition == Disposition::incorrect;
      }
      CHECK((incorrect > 0) == can_show(fault, b.variant));
    }
  }
}
