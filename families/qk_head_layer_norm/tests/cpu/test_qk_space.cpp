// The q/k family's space: its axis table carries every value of every axis
// through name, params and compile request, and a request instantiates the
// fused template with the variant's values, spelled as the template takes them.
#include <exactune/space.hpp>

#include "catch.hpp"
#include "qk_head_layer_norm/qk_head_layer_norm_family.hpp"
#include "support/axis_table_round_trip.hpp"

using namespace exactune;

TEST_CASE("every value of every axis round-trips through name, params and compile request", "[qk_space]") {
  exactune_test::check_axis_table_round_trip(qk_head_layer_norm_family(), QkHeadLayerNormConfig::table(),
                                             {32, 36, 64, 128});
}

TEST_CASE("variant requests instantiate the fused template with the variant's values", "[qk_space]") {
  const KernelFamily& family = qk_head_layer_norm_family();
  const std::vector<Param> params = {
      {"num_warps", "2"}, {"rows_per_cta", "8"}, {"vector_bytes", "16"}, {"counts", "fold"}, {"qk_grid", "split"}};
  const Variant v{family.variant_name(params), params};
  CHECK(v.name == "w2_r8_v16_fold_split");
  REQUIRE(family.exclusion(v.params, 64).empty());
  const CompileRequest r = family.variant_request(v, 64, "sm_90");
  CHECK(r.name == "w2_r8_v16_fold_split@Dh64");
  CHECK(r.main_file == "families/qk_head_layer_norm/kernels/fused_qk_head_layer_norm.cuh");
  // Two of aten's 8-byte vectors per 16-byte load.
  CHECK(r.name_expression ==
        "&exactune_kernels::fused_qk_head_layer_norm<64, 2, 8, 2, exactune_kernels::qk_counts_fold, "
        "exactune_kernels::qk_grid_split>");
  CHECK(r.target == "sm_90");
}

// SGLang's launch (ROWS = 64, num_warps = 2) in this space; at head_dim 64 and
// 128 it is no variant (a thread per row stands in for too many aten lanes),
// which the reports say rather than time another configuration.
TEST_CASE("qk_head_layer_norm: SGLang's rule maps to w2_r64_v8_rcp_joint", "[space][framework_rule]") {
  const KernelFamily& family = qk_head_layer_norm_family();
  const std::optional<FrameworkRule> rule = family.framework_rule(qk_head_shape("s", 2, 1024, 70, 32, 1e-6));
  REQUIRE(rule.has_value());
  CHECK(rule->configuration.variant == "w2_r64_v8_rcp_joint");
  CHECK(family.exclusion(rule->configuration.params, 32).empty());
  CHECK_FALSE(family.exclusion(rule->configuration.params, 128).empty());
}
