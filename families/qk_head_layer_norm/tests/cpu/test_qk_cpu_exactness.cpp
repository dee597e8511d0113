// The qk_head_layer_norm variant space, executed on the CPU from the same
// template source, against the CPU-run reference (aten's LayerNorm on q's rows,
// then k's): an aten combine skipped or reordered in any variant fails here, in
// CI, without a GPU.
#include <fmt/format.h>

#include <set>

#include <exactune/space.hpp>

#include "catch.hpp"
#include "qk_head_layer_norm/qk_head_layer_norm_family.hpp"
#include "support/cpu_verification.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;

namespace {

// One token of 37 heads: 37 rows per tensor, so that every CTA of 2..64 rows
// is left partly empty at the end of q (followed by k's first CTA in a joint
// grid) and of k.
Shape small_shape(int head_dim) { return qk_head_shape(fmt::format("cpu-dh{}", head_dim), 1, 1, 37, head_dim, 1e-6); }

VerifyStageResult verify_on_cpu(const std::vector<int>& head_dims, const std::string& glob,
                                const std::vector<std::string>& defines = {}) {
  std::vector<Shape> shapes;
  for (int d : head_dims) shapes.push_back(small_shape(d));
  return exactune_test::verify_on_cpu(qk_head_layer_norm_family(), shapes, glob, defines);
}

void require_all_exact(const VerifyStageResult& result) {
  exactune_test::require_all_exact(qk_head_layer_norm_family(), result);
}

}  // namespace

// head_dim 32 admits every combination of axis values that any head_dim admits
// (checked here), so that one size runs the whole space; its rows of 8 vectors
// put from 1 to 8 aten lanes in a thread and leave whole threads idle.
TEST_CASE("every valid qk variant is bit-exact on the CPU", "[qk_cpu_exactness]") {
  const KernelFamily& family = qk_head_layer_norm_family();
  std::set<std::string> at_32;
  for (const Variant& v : valid_variants(family, 32)) at_32.insert(v.name);
  for (int head_dim = 4; head_dim <= 128; head_dim += 4) {
    for (const Variant& v : valid_variants(family, head_dim)) {
      INFO(v.name << " valid at head_dim " << head_dim);
      CHECK(at_32.count(v.name) == 1);
    }
  }
  const VerifyStageResult result = verify_on_cpu({32}, "*");
  CHECK(result.builds.size() == at_32.size());
  require_all_exact(result);
}

// The other default sizes, and rows of 3 and 25 vectors: partial chunks, lanes
// past the row at every tree level, and counts (12, 100) whose reciprocals are
// inexact. The grid axis does not meet the row's shape (the kernel's arithmetic
// is the same code in both grids), so joint variants stand for split ones here.
TEST_CASE("every valid joint qk variant at the other default and at odd head_dims is bit-exact on the CPU",
          "[qk_cpu_exactness]") {
  require_all_exact(verify_on_cpu({64, 128, 12, 100}, "*_joint"));
}

TEST_CASE("planted faults are caught in every qk variant tried, with a first-mismatch report", "[qk_cpu_exactness]") {
  // 1 swaps the combine's mean FMA (visible where a combine's counts differ:
  // head_dim 100), 3 walks the warp tree with ascending offsets.
  for (int fault : {1, 3}) {
    INFO("planted fault " << fault);
    const VerifyStageResult result =
        verify_on_cpu({100}, "w4_*_v8_*_joint", {fmt::format("EXACTUNE_PLANTED_FAULT={}", fault)});
    std::set<std::string> tried, caught;
    for (const VerifyRecord& r : result.records) {
      tried.insert(r.variant);
      if (r.disposition != Disposition::incorrect) continue;
      caught.insert(r.variant);
      REQUIRE(r.first_mismatch);
      CHECK(r.message.find("first at row") != std::string::npos);
    }
    CHECK(!tried.empty());
    CHECK(caught == tried);
  }
}

TEST_CASE("a qk shape's own eps is what its cases and its timing run at", "[qk_cpu_exactness]") {
  const KernelFamily& family = qk_head_layer_norm_family();
  const Shape shape = qk_head_shape("eps-1e-3", 1, 2, 2, 64, 1e-3);
  std::set<std::string> names;
  for (const InputCase& c : family.input_cases(shape)) names.insert(c.name);
  CHECK(names.count("offset100_e0.001") == 1);
  CHECK(names.count("denormals_e0.001") == 1);
  CHECK(names.count("signed_zeros_e0.001") == 1);
  CHECK(names.count("a1_e0.001") == 1);
  CHECK(family.timing_case(shape).name == "a1_e0.001");
}
