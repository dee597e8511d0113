// The token-major family's variants executed on the CPU from the same template
// source, against the CPU-run reference (transpose copy, aten's LayerNorm, the
// eager chain): a tile read, transposed or normalised in the wrong order fails
// here, in CI, without a GPU.
#include <fmt/format.h>

#include <set>

#include <exactune/space.hpp>

#include "catch.hpp"
#include "layer_norm_modulate_token_major/layer_norm_modulate_token_major_family.hpp"
#include "support/cpu_verification.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;

namespace {

// Two batches at hidden 72, so that a tile's scale and shift rows are its
// batch's (one at Sana's 2240, to keep the CPU's time down). 64 and 32 tokens
// fill whole tiles and runs of every width; 37 leave the last tile partial and
// no run aligned, so every tile is read a token at a time; 19 and 11 leave the
// last group of rows of a tile partly empty.
struct SmallShape {
  int hidden;
  int tokens;
  int batch = 2;
};

Shape small_shape(const SmallShape& small) {
  const auto [hidden, tokens, batch] = small;
  Shape s = token_major_shape(fmt::format("cpu-tm-d{}-b{}-n{}", hidden, batch, tokens), batch, tokens, hidden, 1e-6, 6);
  s.model = "CPU exactness, token-major";
  return s;
}

VerifyStageResult verify_on_cpu(const std::vector<SmallShape>& small_shapes, const std::string& glob,
                                const std::vector<std::string>& defines = {}) {
  std::vector<Shape> shapes;
  for (const SmallShape& small : small_shapes) shapes.push_back(small_shape(small));
  return exactune_test::verify_on_cpu(layer_norm_modulate_token_major_family(), shapes, glob, defines);
}

void require_all_exact(const VerifyStageResult& result) {
  exactune_test::require_all_exact(layer_norm_modulate_token_major_family(), result);
}

std::set<std::string> variants_of(const VerifyStageResult& result) {
  std::set<std::string> names;
  for (const VerifyRecord& r : result.records) names.insert(r.variant);
  return names;
}

// Valid variants at `hidden` whose name starts with `prefix`.
std::size_t valid_with_prefix(int hidden, const std::string& prefix) {
  std::size_t n = 0;
  for (const Variant& v : valid_variants(layer_norm_modulate_token_major_family(), hidden)) {
    if (v.name.rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

}  // namespace

// Hidden 72: rows of 18 vectors, partial chunks for every row plan; 2240: Sana's.
TEST_CASE("every tile size, layout and run width is bit-exact on the CPU, in whole runs and a token at a time",
          "[token_major_cpu_exactness]") {
  const VerifyStageResult result = verify_on_cpu({{72, 64}, {72, 37}, {2240, 32, 1}}, "tile*_w4_r1_v8_late");
  // Tiles of 8, 16 and 32 take every layout and run width; of 4, runs of 2
  // and 4 tokens; of 2, runs of 2.
  CHECK(variants_of(result).size() == 3 * 2 * 3 + 2 * 2 + 2);
  require_all_exact(result);
}

// Lanes variants: every run width, sharing and tiles a CTA. Whole runs: 32
// tokens at 2240 (whole tiles of every size; five rounds of vectors leave 48
// lanes in the last); 40 at 72 (whole runs, but the last tile of 16 or 32 is
// cut, so that a staged tile mixes staged runs with threads that have none;
// tiles a CTA that its batch element runs out of). No aligned run: 37, where
// every thread reads a token at a time, and some threads of the last tile
// have no token at all.
TEST_CASE("every lanes variant is bit-exact on the CPU, in whole runs and a token at a time",
          "[token_major_cpu_exactness]") {
  const VerifyStageResult result = verify_on_cpu({{72, 40}, {72, 37}, {2240, 32, 1}}, "lanes*");
  CHECK(result.builds.size() == valid_with_prefix(72, "lanes") + valid_with_prefix(2240, "lanes"));
  CHECK(variants_of(result).size() == valid_with_prefix(72, "lanes"));  // those at 2240 are among them
  require_all_exact(result);
}

TEST_CASE("every row plan of a tile variant is bit-exact on the CPU", "[token_major_cpu_exactness]") {
  const VerifyStageResult result = verify_on_cpu({{72, 19}, {2240, 11, 1}}, "tile16_swizzled_n8_*");
  CHECK(result.builds.size() ==
        valid_with_prefix(72, "tile16_swizzled_n8_") + valid_with_prefix(2240, "tile16_swizzled_n8_"));
  CHECK(variants_of(result).size() >= 20);
  require_all_exact(result);
}

// The copy variants' second kernels are the contiguous family's own, which
// its CPU suite verifies: the four-warp ones stand for them here, behind the copy.
TEST_CASE("the copy variants of four warps are bit-exact on the CPU", "[token_major_cpu_exactness]") {
  const VerifyStageResult result = verify_on_cpu({{2240, 3}}, "copy_w4_*");
  CHECK(result.builds.size() == valid_with_prefix(2240, "copy_w4_"));
  CHECK(!result.builds.empty());
  require_all_exact(result);
}

// Fault 8 reads swizzled rows with a permutation that ignores the token's bit
// 3: tokens 8 and up of a tile read another token's units. Padded tiles and
// tiles of 8 tokens never see it; swizzled tiles of 16 and 32 always do.
TEST_CASE("a swizzle that the tile's reads and writes disagree on is caught, where it can show",
          "[token_major_cpu_exactness]") {
  const VerifyStageResult result = verify_on_cpu({{72, 64}}, "tile*_n8_w4_r1_v8_late", {"EXACTUNE_PLANTED_FAULT=8"});
  std::set<std::string> caught, passed;
  for (const VerifyRecord& r : result.records) {
    if (r.disposition == Disposition::incorrect) {
      caught.insert(r.variant);
      REQUIRE(r.first_mismatch);
      CHECK(r.message.find("first at row") != std::string::npos);
    } else {
      CHECK(r.disposition == Disposition::passed);
      passed.insert(r.variant);
    }
  }
  CHECK(caught == std::set<std::string>{"tile16_swizzled_n8_w4_r1_v8_late", "tile32_swizzled_n8_w4_r1_v8_late"});
  CHECK(passed == std::set<std::string>{"tile4_padded_n8_w4_r1_v8_late", "tile8_padded_n8_w4_r1_v8_late",
                                        "tile16_padded_n8_w4_r1_v8_late", "tile32_padded_n8_w4_r1_v8_late",
                                        "tile4_swizzled_n8_w4_r1_v8_late", "tile8_swizzled_n8_w4_r1_v8_late"});
}
