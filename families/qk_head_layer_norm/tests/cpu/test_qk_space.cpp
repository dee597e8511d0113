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
