// The gated residual family's variants, executed on the CPU from the same
// template source, against the CPU-run eager reference, both outputs (r and
// y) compared bit for bit; and faults planted in the residual's arithmetic and
// in the row source, each caught in the output it breaks.
#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <exactune/space.hpp>

#include "catch.hpp"
#include "gated_residual_layer_norm_modulate/gated_residual_layer_norm_modulate_family.hpp"
#include "space/pairwise_cover.hpp"
#include "space/selection.hpp"
#include "support/cpu_verification.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;

namespace {

const KernelFamily& gated() { return gated_residual_layer_norm_modulate_family(); }

// Two batches, so that gate, scale and shift rows change with the batch; 6
// rows, so that CTAs of 4 and 8 rows are left partly empty.
Shape small_shape(int hidden, int tokens) {
  Shape s = gated_residual_shape(fmt::format("cpu-d{}", hidden), 2, tokens, hidden, 1e-6, 6);
  s.model = "CPU exactness";
  return s;
}

VerifyStageResult verify_on_cpu(int hidden, const std::string& glob, const std::vector<std::string>& defines = {},
                                int tokens = 3) {
  return exactune_test::verify_on_cpu(gated(), {small_shape(hidden, tokens)}, glob, defines);
}

void require_all_exact(const VerifyStageResult& result) { exactune_test::require_all_exact(gated(), result); }

// Per variant, whether some run of it was incorrect; every run of a variant
// that was must name `output` as its first mismatch's.
std::map<std::string, bool> incorrect_variants(const VerifyStageResult& result, const std::string& output) {
  std::map<std::string, bool> incorrect;
  for (const VariantBuild& b : result.builds) {
    INFO(b.variant.name << ":\n" << b.outcome.log);
    REQUIRE(b.outcome.ok);
    incorrect[b.variant.name] = false;
  }
  for (const VerifyRecord& r : result.records) {
    INFO(r.variant << " " << r.input_case << ": " << r.message);
    REQUIRE(r.disposition != Disposition::failed);
    if (r.disposition != Disposition::incorrect) continue;
    incorrect[r.variant] = true;
    REQUIRE(r.first_mismatch);
    CHECK(r.first_mismatch->output == output);
    CHECK(r.message.find(fmt::format("first at output {}, row", output)) != std::string::npos);
  }
  return incorrect;
}

}  // namespace

// Sana's hidden size leaves a partial 512-element chunk (48 of 128 lanes).
TEST_CASE("every valid variant at Sana's hidden size is bit-exact on the CPU, r and y", "[gated_cpu_exactness]") {
  const VerifyStageResult result = verify_on_cpu(2240, "*");
  CHECK(result.builds.size() == valid_variants(gated(), 2240).size());
  require_all_exact(result);
}

// 18 aten vectors: every chunk partial, most lanes empty. A pairwise cover
// (space/pairwise_cover.hpp): every pair of lever values meets the partial
// chunks here, and every variant meets a partial chunk at Sana's size above;
// the whole space at 72 took a minute of the CI's CPU suites, and the GPU
// sweeps verify every variant they time.
TEST_CASE("a pairwise cover of the valid variants at hidden 72 is bit-exact on the CPU, r and y",
          "[gated_cpu_exactness]") {
  const Shape shape = small_shape(72, 3);
  const std::vector<Variant> valid = valid_variants(gated(), 72);
  const std::vector<Variant> cover = pairwise_cover(valid);
  REQUIRE(cover.size() < valid.size());
  std::set<ShapeVariant> pairs;
  for (const Variant& v : cover) pairs.insert({shape.name, v.name});
  const CompileCache cache(CompileCache::default_directory());
  CpuBackend cpu(2);
  VerifyStageOptions options;
  options.selection = Selection(pairs);
  const VerifyStageResult result =
      run_verify_stage(gated(), cpu, load_support_kernels(gated(), cpu, cache), {shape}, cache, options);
  CHECK(result.builds.size() == cover.size());
  require_all_exact(result);
}

// Per-token modulation (gate, scale and shift a row per token) is the family
// with one token per batch element: seven tokens, each with its own rows of a
// (7, 6, D) embedding, so that a row read for the wrong token shows.
TEST_CASE("per-token modulation is the family at one token a batch element, bit-exact", "[gated_cpu_exactness]") {
  Shape per_token = gated_residual_shape("cpu-per-token-d3072", 7, 1, 3072, 1e-6, 6);
  per_token.model = "CPU exactness, per-token modulation";
  const VerifyStageResult result = exactune_test::verify_on_cpu(gated(), {per_token}, "w4_*");
  CHECK(result.builds.size() > 20);
  require_all_exact(result);
}

// 9: x + gate * h as one FMA (torch.addcmul's chain); 10: the float32 product
// added without its bf16 rounding. Both break r, the first output, in every
// variant and both elementwise forms.
TEST_CASE("faults in the residual's arithmetic are caught in every variant, named as output r",
          "[gated_cpu_exactness]") {
  for (int fault : {9, 10}) {
    INFO("planted fault " << fault);
    const VerifyStageResult result =
        verify_on_cpu(2240, "w*_r1_predicated_v8_*_rcp_late_*_full", {fmt::format("EXACTUNE_PLANTED_FAULT={}", fault)});
    const std::map<std::string, bool> incorrect = incorrect_variants(result, "r");
    REQUIRE(incorrect.size() >= 8);
    for (const auto& [variant, wrong] : incorrect) {
      INFO(variant);
      CHECK(wrong);
    }
  }
}

// 11: pass 2 reads x where it must read r back. r is right, y is not, and
// only where pass 2 reads memory: variants that hold the row in registers stay exact.
TEST_CASE("a pass 2 that reads x instead of r shows in y, in every reload variant and no other",
          "[gated_cpu_exactness]") {
  const VerifyStageResult result =
      verify_on_cpu(2240, "w*_r1_predicated_v8_*_rcp_late_bf16x2_*", {"EXACTUNE_PLANTED_FAULT=11"});
  const std::map<std::string, bool> incorrect = incorrect_variants(result, "y");
  REQUIRE(incorrect.size() >= 8);
  for (const auto& [variant, wrong] : incorrect) {
    INFO(variant);
    CHECK(wrong == (LayerNormModulateConfig::from(Variant{variant, *gated_residual_axis_table().parse_name(variant)})
                        .row_in_registers == false));
  }
}
