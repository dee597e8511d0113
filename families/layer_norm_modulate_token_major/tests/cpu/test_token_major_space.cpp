// The token-major family's space and shapes: its axis table carries every
// value through name, params and compile request, its copy variants are the
// contiguous family's variants behind a copy, an axis applies only where its
// part of the space has it as a lever, its tile variants respect the
// shared-memory limit, and its input memory is torch's permuted layout.
#include <fmt/format.h>

#include <set>

#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate_token_major/layer_norm_modulate_token_major_family.hpp"
#include "layer_norm_modulate_token_major/layer_norm_modulate_token_major_workload.hpp"
#include "shapes/shape_file.hpp"
#include "support/axis_table_round_trip.hpp"

using namespace exactune;

namespace {

const KernelFamily& family() { return layer_norm_modulate_token_major_family(); }

bool is_copy(const Variant& v) { return !TokenMajorConfig::from(v).in_place(); }

}  // namespace

TEST_CASE("the family is registered and reads its default shapes", "[token_major_space]") {
  CHECK(&FamilyRegistry::find("layer_norm_modulate_token_major") == &family());
  const ShapeSet shapes = default_shapes(family());
  REQUIRE(shapes.shapes.size() == 2);
  CHECK(shapes.shapes[0].name == "sana-1024px-token-major");
  CHECK(shapes.shapes[0].size == 2240);
  CHECK(shapes.shapes[0].rows() == 2048);
  CHECK(shapes.shapes[1].rows() == 37);
}

TEST_CASE("every value of every axis round-trips through name, params and compile request", "[token_major_space]") {
  exactune_test::check_axis_table_round_trip(family(), TokenMajorConfig::table(), {72, 1000, 2240, 4096});
}

TEST_CASE("the in-place reads instantiate their templates with the variant's values", "[token_major_space]") {
  const auto request = [](const std::string& name) {
    for (const Variant& v : valid_variants(family(), 2240)) {
      if (v.name == name) return family().variant_request(v, 2240, "sm_90");
    }
    FAIL("no valid variant " << name);
    return CompileRequest{};
  };
  // The tile kernel counts aten vectors per row load and 4-byte words per token load.
  const CompileRequest tile = request("tile16_swizzled_n8_w4_r1_v8_late");
  CHECK(tile.main_file == "families/layer_norm_modulate_token_major/kernels/token_major_layer_norm_modulate.cuh");
  CHECK(tile.name_expression ==
        "&exactune_kernels::token_major_layer_norm_modulate<2240, 4, 1, 1, "
        "exactune_kernels::modulation_late, 16, exactune_kernels::tile_swizzled, 2>");
  // The lanes kernel takes the threads that share a lane and each one's tokens.
  const CompileRequest lanes = request("lanes8x2_n8_w8_early");
  CHECK(lanes.main_file == "families/layer_norm_modulate_token_major/kernels/token_major_lanes.cuh");
  CHECK(lanes.name_expression ==
        "&exactune_kernels::token_major_lanes_layer_norm_modulate<2240, 2, 4, exactune_kernels::modulation_early, 2>");
}

TEST_CASE("an axis applies where its part of the space has it as a lever", "[token_major_space]") {
  const auto applies_to = [](const std::string& read) {
    std::vector<Param> params = family().global_default().params;
    for (Param& p : params) {
      if (p.axis == "read") p.value = read;
    }
    std::set<std::string> axes;
    for (const Axis& a : family().axes()) {
      if (family().axis_applies(a.name, params)) axes.insert(a.name);
    }
    return axes;
  };
  CHECK(applies_to("copy") ==
        std::set<std::string>{"read", "num_warps", "rows_per_cta", "vector_bytes", "modulation", "grid"});
  CHECK(applies_to("tile") == std::set<std::string>{"read", "num_warps", "rows_per_cta", "vector_bytes", "modulation",
                                                    "tile_tokens", "tile_layout", "token_bytes"});
  CHECK(applies_to("lanes") ==
        std::set<std::string>{"read", "num_warps", "modulation", "tile_tokens", "token_bytes", "tiles_per_cta"});
}

TEST_CASE("copy variants are the contiguous variants with the fixed levers, behind the copy", "[token_major_space]") {
  for (int hidden : {2240, 3072, 72}) {
    INFO("hidden " << hidden);
    std::set<std::string> copies;
    for (const Variant& v : valid_variants(family(), hidden)) {
      if (!is_copy(v)) continue;
      const Variant contiguous = TokenMajorConfig::from(v).contiguous_variant();
      CHECK(layer_norm_modulate_family().exclusion(contiguous.params, hidden).empty());
      CHECK(contiguous.name.find("_predicated_") != std::string::npos);
      CHECK(contiguous.name.find("_registers_rcp_") != std::string::npos);
      copies.insert(contiguous.name);
      // Each lever of a copy variant reaches its kernel as the contiguous family's value.
      for (const Param& p : v.params) {
        if (p.axis != "read" && family().axis_applies(p.axis, v.params)) CHECK(contiguous.param(p.axis) == p.value);
      }
      // The same kernel as the contiguous family's: one cache entry for both.
      const CompileRequest ours = family().variant_request(v, hidden, "sm_90");
      const CompileRequest theirs = layer_norm_modulate_family().variant_request(contiguous, hidden, "sm_90");
      CHECK(ours.main_file == theirs.main_file);
      CHECK(ours.name_expression == theirs.name_expression);
    }
    std::set<std::string> expected;
    for (const Variant& v : valid_variants(layer_norm_modulate_family(), hidden)) {
      const bool fixed_levers = v.param("tail") == "predicated" && v.param("pass2") == "registers" &&
                                v.param("counts") == "rcp" && v.param("elementwise") == "bf16x2" &&
                                v.param("num_warps") != "1";
      if (fixed_levers) expected.insert(v.name);
    }
    CHECK(copies == expected);
  }
}

TEST_CASE("tile variants are refused where their tile would not fit in a CTA's shared memory", "[token_major_space]") {
  const std::vector<Candidate> at_8192 = enumerate_space(family(), 8192);
  std::size_t tile32 = 0;
  for (const Candidate& c : at_8192) {
    const TokenMajorConfig config = TokenMajorConfig::from(c.variant);
    if (config.read != TokenMajorRead::tile || config.tile_tokens != 32) continue;
    ++tile32;
    CHECK(!c.valid());
  }
  CHECK(tile32 > 0);
  const TokenMajorConfig swizzled = TokenMajorConfig::decode({{"read", "tile"},
                                                              {"num_warps", "4"},
                                                              {"rows_per_cta", "1"},
                                                              {"vector_bytes", "8"},
                                                              {"modulation", "late"},
                                                              {"grid", "full"},
                                                              {"tile_tokens", "16"},
                                                              {"tile_layout", "swizzled"},
                                                              {"token_bytes", "8"},
                                                              {"tiles_per_cta", "1"}});
  // Rows rounded up to whole groups of eight 16-byte units: 2240 -> 2240, 72 -> 128.
  CHECK(swizzled.tile_bytes(2240) == 16 * 2240 * 2);
  CHECK(swizzled.tile_bytes(72) == 16 * 128 * 2);
  const LaunchGeometry g = swizzled.tile_geometry(2, 37, 2240);
  CHECK(g.grid.x == 2 * 3);
  CHECK(g.block.x == 128);
  CHECK(g.dynamic_shared_bytes == 16 * 2240 * 2);
}

TEST_CASE("a lanes variant's CTA is 128 threads for each thread sharing a lane, over its tiles' tokens",
          "[token_major_space]") {
  const std::vector<Param> params = {{"read", "lanes"},     {"num_warps", "8"},        {"rows_per_cta", "1"},
                                     {"vector_bytes", "8"}, {"modulation", "early"},   {"grid", "full"},
                                     {"tile_tokens", "8"},  {"tile_layout", "padded"}, {"token_bytes", "8"},
                                     {"tiles_per_cta", "2"}};
  const TokenMajorConfig lanes = TokenMajorConfig::decode(params);
  CHECK(lanes.run_threads() == 2);
  CHECK(lanes.cta_tokens() == 16);
  // The staged next tile: 5 rounds of 4 channels, a run of 8 bytes for each of 256 threads.
  CHECK(lanes.tile_bytes(2240) == 5 * 4 * 256 * 8);
  const LaunchGeometry g = lanes.tile_geometry(2, 37, 2240);
  CHECK(g.grid.x == 2 * 3);  // 37 tokens: three CTAs of 16 a batch element
  CHECK(g.block.x == 256);
  CHECK(g.dynamic_shared_bytes == 5 * 4 * 256 * 8);
  TokenMajorConfig one_tile = lanes;
  one_tile.tiles_per_cta = 1;
  CHECK(one_tile.tile_bytes(2240) == 0);
  CHECK(family().variant_name(params) == "lanes8x2_n8_w8_early");
  // Every valid lanes variant at Sana's hidden: warps follow the sharing, a
  // thread holds no more than 96 registers of x, and the staged tile fits in
  // the 227 KiB of shared memory a CTA may hold.
  std::size_t valid = 0;
  for (const Variant& v : valid_variants(family(), 2240)) {
    const TokenMajorConfig c = TokenMajorConfig::from(v);
    if (c.read != TokenMajorRead::lanes) continue;
    ++valid;
    CHECK(c.num_warps == 4 * c.run_threads());
    CHECK(c.rows_per_cta == 1);
    CHECK(5 * 4 * (c.token_bytes / 2) / 2 <= 96);
    CHECK(c.tile_bytes(2240) <= 227 * 1024);
  }
  CHECK(valid == 54);
  // Only lanes variants take several tiles a CTA.
  for (const Candidate& c : enumerate_space(family(), 2240)) {
    const TokenMajorConfig config = TokenMajorConfig::from(c.variant);
    if (config.read != TokenMajorRead::lanes && config.tiles_per_cta != 1) CHECK(!c.valid());
  }
}

TEST_CASE("the global default is aten's own path and valid at every hidden size served", "[token_major_space]") {
  const Configuration d = family().global_default();
  CHECK(d.variant == "copy_w4_r1_v8_late_full");
  for (int hidden = 4; hidden <= 8192; hidden += 4) {
    INFO("hidden " << hidden);
    REQUIRE(family().exclusion(d.params, hidden).empty());
  }
}

TEST_CASE("variant names are unique and name every axis value that differs", "[token_major_space]") {
  const std::vector<Candidate> all = enumerate_space(family(), 2240);
  std::set<std::string> names;
  for (const Candidate& c : all) names.insert(c.variant.name);
  CHECK(names.size() == all.size());
  CHECK(names.count("tile16_swizzled_n8_w4_r1_v8_late") == 1);
}

TEST_CASE("the input memory is torch's y.permute(0, 2, 1) of a contiguous (B, C, N) y", "[token_major_space]") {
  // logical[b][n][c] = 100 b + 10 n + c for B = 2, N = 3, C = 4.
  std::vector<std::uint16_t> logical;
  for (int b = 0; b < 2; ++b)
    for (int n = 0; n < 3; ++n)
      for (int c = 0; c < 4; ++c) logical.push_back(static_cast<std::uint16_t>(100 * b + 10 * n + c));
  const std::vector<std::uint16_t> memory = transpose_batches(logical, 2, 3, 4);
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 4; ++c)
      for (int n = 0; n < 3; ++n) CHECK(memory[b * 12 + c * 3 + n] == 100 * b + 10 * n + c);
  CHECK(transpose_batches(memory, 2, 4, 3) == logical);
}

// SGLang's fused kernel takes a contiguous x only: a token-major x has no
// framework rule, and the reports say so.
TEST_CASE("token-major: no framework rule", "[space][framework_rule]") {
  CHECK_FALSE(FamilyRegistry::find("layer_norm_modulate_token_major")
                  .framework_rule(token_major_shape("s", 2, 1024, 2240, 1e-6))
                  .has_value());
}
