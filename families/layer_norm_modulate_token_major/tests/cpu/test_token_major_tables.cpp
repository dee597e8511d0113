// What the token-major tables choose from: the in-place reads only. The copy
// variants are swept, timed and ranked (they are the baseline of summary.md),
// but the runtime cannot launch them, so a table that chose one would send
// its rows to the eager chain. Checked on the committed H200 sweep, where a
// copy variant is the fastest on 37 tokens.
#include <filesystem>
#include <string>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "layer_norm_modulate_token_major/layer_norm_modulate_token_major_family.hpp"
#include "report/summary_report.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"

using namespace exactune;

namespace {

const std::filesystem::path kSweep = std::filesystem::path(EXACTUNE_SOURCE_DIR) / "reports" / "nvidia-h200" /
                                     "layer_norm_modulate_token_major" / "sweep.yaml";

bool is_copy(const std::string& variant, const SweepResults& sweep) {
  for (const ShapeResult& s : sweep.shapes)
    for (const VariantResult& v : s.variants)
      if (v.variant == variant) return !TokenMajorConfig::decode(v.params).in_place();
  FAIL("variant " << variant << " is not in the sweep");
  return false;
}

const ShapeResult& shape_named(const SweepResults& sweep, const std::string& name) {
  for (const ShapeResult& s : sweep.shapes)
    if (s.shape.name == name) return s;
  FAIL("no shape " << name);
  return sweep.shapes.front();
}

}  // namespace

TEST_CASE("the token-major tables choose in-place reads only, and the copy baseline stays ranked and reported",
          "[token_major_tables]") {
  const SweepResults sweep = read_sweep_file(kSweep);
  const KernelFamily& family = FamilyRegistry::find(sweep.family);
  const Heuristics h = choose_heuristics(sweep);
  REQUIRE_FALSE(h.device.choices.empty());
  for (const Choice& c : h.device.choices) {
    CHECK_FALSE(is_copy(c.chosen.variant, sweep));
    if (!c.runner_up.empty()) CHECK_FALSE(is_copy(c.runner_up, sweep));
  }
  CHECK_FALSE(is_copy(h.device.default_configuration.variant, sweep));
  // The global default stays aten's own path, for a GPU without a table.
  CHECK(is_copy(h.global_default.variant, sweep));

  // On 37 tokens a copy variant is the fastest: still first in the ranking the
  // summary reports; the choice is the fastest in-place read.
  const ShapeResult& few = shape_named(sweep, "edge-37tok-d2240-token-major");
  const auto ranked = ranked_by_policy(few, h.policy);
  REQUIRE(ranked.size() > 2);
  CHECK(is_copy(ranked.front()->variant, sweep));
  const VariantResult* fastest_in_place = nullptr;
  for (const VariantResult* v : ranked) {
    if (family.not_chosen_because(v->params).empty()) {
      fastest_in_place = v;
      break;
    }
  }
  REQUIRE(fastest_in_place != nullptr);
  const Choice* choice = h.device.choice_for(few.shape.size, few.shape.rows());
  REQUIRE(choice != nullptr);
  CHECK(choice->chosen.variant == fastest_in_place->variant);

  for (const auto& [shape, names] : contenders(sweep, 5)) {
    CHECK(names.size() == 5);
    for (const std::string& n : names) CHECK_FALSE(is_copy(n, sweep));
  }

  const std::string summary = summary_markdown(sweep, h);
  CHECK(summary.find("Best exact but never chosen: `" + ranked.front()->variant + "`") != std::string::npos);
  CHECK(summary.find("the runtime does not hold") != std::string::npos);
}

TEST_CASE("a hand-made token-major table that chooses a copy variant is refused with its file and line",
          "[token_major_tables]") {
  const SweepResults sweep = read_sweep_file(kSweep);
  const Heuristics chosen = choose_heuristics(sweep);
  const ShapeResult& few = shape_named(sweep, "edge-37tok-d2240-token-major");
  const VariantResult* copy = ranked_by_policy(few, chosen.policy).front();
  REQUIRE(is_copy(copy->variant, sweep));
  CHECK_NOTHROW(parse_heuristics_yaml(to_heuristics_yaml(chosen), "tables.yaml"));

  Heuristics in_choice = chosen;
  in_choice.device.choices.front().chosen = {copy->variant, copy->params};
  Heuristics as_default = chosen;
  as_default.device.default_configuration = {copy->variant, copy->params};
  for (const Heuristics& hand_made : {in_choice, as_default}) {
    try {
      parse_heuristics_yaml(to_heuristics_yaml(hand_made), "hand.yaml");
      FAIL("a table choosing " << copy->variant << " was read");
    } catch (const error& e) {
      const std::string what = e.what();
      CHECK(what.rfind("hand.yaml:", 0) == 0);
      CHECK(what.find("variant " + copy->variant +
                      " is never chosen by family layer_norm_modulate_token_major's "
                      "tables: a copy variant needs a buffer") != std::string::npos);
    }
  }
}
