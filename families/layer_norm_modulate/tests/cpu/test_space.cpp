#include <set>
#include <string>

#include <exactune/space.hpp>

#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "support/axis_table_round_trip.hpp"

using namespace exactune;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Candidate find(const std::vector<Candidate>& space, const std::string& name) {
  for (const Candidate& c : space) {
    if (c.variant.name == name) return c;
  }
  FAIL("no candidate " << name);
  return {};
}

std::string why(int hidden, const std::string& name) {
  return find(enumerate_space(layer_norm_modulate_family(), hidden), name).excluded_because;
}

}  // namespace

TEST_CASE("the space is the full product of the axes, with unique names") {
  const auto space = enumerate_space(layer_norm_modulate_family(), 3072);
  REQUIRE(space.size() == 5 * 4 * 2 * 2 * 2 * 2 * 2 * 2 * 2);
  std::set<std::string> names;
  for (const Candidate& c : space) names.insert(c.variant.name);
  REQUIRE(names.size() == space.size());
}

TEST_CASE("every value of every axis round-trips through name, params and compile request") {
  exactune_test::check_axis_table_round_trip(layer_norm_modulate_family(), LayerNormModulateConfig::table(),
                                             {72, 1000, 2240, 4096});
}

TEST_CASE("names are stable, readable, and carry every parameter") {
  const Candidate c =
      find(enumerate_space(layer_norm_modulate_family(), 2240), "w4_r2_peeled_v16_reload_rcp_late_f32_full");
  CHECK(c.valid());
  CHECK(c.variant.param("num_warps") == "4");
  CHECK(c.variant.param("rows_per_cta") == "2");
  CHECK(c.variant.param("tail") == "peeled");
  CHECK(c.variant.param("vector_bytes") == "16");
  CHECK(c.variant.param("pass2") == "reload");
  CHECK(c.variant.param("counts") == "rcp");
  CHECK(c.variant.param("modulation") == "late");
  CHECK(c.variant.param("elementwise") == "f32");
  CHECK(c.variant.param("grid") == "full");
  CHECK(layer_norm_modulate_family().variant_name(c.variant.params) == c.variant.name);
}

TEST_CASE("every valid variant serves a row with 32, 64 or 128 threads") {
  for (int hidden : {4, 64, 400, 1000, 2240, 2244, 3072, 4096, 8192}) {
    for (const Variant& v : valid_variants(layer_norm_modulate_family(), hidden)) {
      const int threads = LayerNormModulateConfig::from(v).threads_per_row();
      INFO(v.name << " at hidden " << hidden);
      CHECK((threads == 32 || threads == 64 || threads == 128));
    }
  }
}

TEST_CASE("exclusions explain themselves") {
  SECTION("less than a warp per row") {
    CHECK(contains(why(3072, "w1_r2_predicated_v8_reload_rcp_late_f32_full"), "less than a warp per row"));
  }
  SECTION("more threads than aten's lanes") {
    CHECK(contains(why(3072, "w8_r1_predicated_v8_reload_rcp_late_f32_full"), "more than aten's 128 lanes"));
  }
  SECTION("16-byte loads at 128 threads per row") {
    CHECK(contains(why(3072, "w4_r1_predicated_v16_reload_rcp_late_f32_full"), "would need 256 lanes"));
  }
  SECTION("16-byte loads need hidden % 8") {
    CHECK(contains(why(2244, "w2_r1_predicated_v16_reload_rcp_late_f32_full"), "hidden % 8 == 0"));
  }
  SECTION("nothing to peel") {
    CHECK(contains(why(4096, "w2_r1_peeled_v8_reload_rcp_late_f32_full"), "no tail to peel"));
  }
  SECTION("register budget") {
    CHECK(contains(why(8192, "w1_r1_predicated_v8_registers_rcp_late_f32_full"), "registers per thread"));
  }
  SECTION("register budget with early modulation") {
    CHECK(contains(why(4096, "w1_r1_predicated_v8_reload_rcp_early_f32_full"), "holding scale and shift"));
    CHECK(why(4096, "w4_r1_predicated_v8_reload_rcp_early_f32_full").empty());
  }
  SECTION("a persistent grid holds rows in registers") {
    CHECK(contains(why(3072, "w4_r1_predicated_v8_reload_fold_late_bf16x2_persistent"), "needs pass2 registers"));
    CHECK(why(3072, "w4_r1_predicated_v8_registers_fold_late_bf16x2_persistent").empty());
    CHECK(contains(why(8192, "w2_r1_predicated_v8_registers_fold_late_bf16x2_persistent"), "holding two rows"));
    CHECK(why(8192, "w2_r1_predicated_v8_registers_fold_late_bf16x2_full").empty());
  }
  SECTION("valid ones have no reason") { CHECK(why(2240, "w2_r1_peeled_v16_registers_rcp_late_f32_full").empty()); }
}

TEST_CASE("tails: peeled is offered exactly where the row has a partial chunk") {
  CHECK(why(2240, "w1_r1_peeled_v8_reload_rcp_late_f32_full").empty());  // 560 vectors over chunks of 32
  CHECK(why(4, "w1_r1_peeled_v8_reload_rcp_late_f32_full").empty());     // 1 vector
  CHECK_FALSE(why(3072, "w1_r1_peeled_v8_reload_rcp_late_f32_full").empty());
}

TEST_CASE("variant requests instantiate the fused template with the variant's parameters") {
  const KernelFamily& family = layer_norm_modulate_family();
  const Candidate c = find(enumerate_space(family, 2240), "w8_r4_peeled_v16_registers_rcp_late_f32_full");
  REQUIRE(c.valid());
  const CompileRequest r = family.variant_request(c.variant, 2240, "sm_90");
  CHECK(r.name == "w8_r4_peeled_v16_registers_rcp_late_f32_full@D2240");
  CHECK(r.target == "sm_90");
  CHECK(contains(r.name_expression,
                 "fused_layer_norm_modulate<2240, 8, 4, 2, exactune_kernels::tail_peeled, "
                 "exactune_kernels::pass2_registers, exactune_kernels::counts_runtime, "
                 "exactune_kernels::modulation_late, exactune_kernels::elementwise_float32, "
                 "exactune_kernels::grid_full>"));
}

// SGLang's hand rule (num_warps = 4 if hidden >= 2048 else 2, ROWS = 2) in this
// space, the open axes as its Triton kernel runs: peeled where the row leaves a
// partial chunk, predicated (the same kernel) where it leaves none.
TEST_CASE("layer_norm_modulate: SGLang's rule maps to w4_r2 from hidden 2048, w2_r2 below", "[space][framework_rule]") {
  const KernelFamily& family = layer_norm_modulate_family();
  const auto rule_at = [&](int hidden) {
    const std::optional<FrameworkRule> rule = family.framework_rule(modulate_shape("s", 2, 1024, hidden, 1e-6));
    REQUIRE(rule.has_value());
    CHECK(rule->framework == "SGLang");
    CHECK(family.exclusion(rule->configuration.params, hidden).empty());
    return rule->configuration.variant;
  };
  CHECK(rule_at(2240) == "w4_r2_peeled_v8_reload_rcp_late_f32_full");
  CHECK(rule_at(3072) == "w4_r2_predicated_v8_reload_rcp_late_f32_full");
  CHECK(rule_at(1000) == "w2_r2_peeled_v8_reload_rcp_late_f32_full");
}
