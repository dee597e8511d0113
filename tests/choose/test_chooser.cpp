// The chooser on recorded timings (support/recorded_sweep.hpp, the toy
// family's): buckets of rows, the shared configuration kept within noise, the
// device and global defaults, the policy that decides which regime ranks, and
// the contenders a sweep re-times.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "store/chooser_policy.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "support/recorded_sweep.hpp"

using namespace exactune;
using namespace recorded;

namespace {

std::string spelled(const std::vector<Param>& params) {
  std::string text;
  for (const Param& p : params) text += fmt::format("{}={} ", p.axis, p.value);
  return text;
}

// Margins are rounded to 1e-4 when chosen.
bool near(std::optional<double> margin, double expected) { return margin && std::abs(*margin - expected) <= 0.5e-4; }

}  // namespace

TEST_CASE("the chooser buckets rows and prefers one configuration within noise", "[chooser]") {
  const Heuristics h = choose_heuristics(recorded_sweep());
  CHECK(h.family == "toy_double");
  CHECK(h.device.slug == "nvidia-h200");
  REQUIRE(h.device.choices.size() == 5);
  const auto& c = h.device.choices;

  SECTION("buckets end at the geometric midpoints of the timed row counts; the last is unbounded") {
    // floor(sqrt(37 * 2048)) = 275, sqrt(2048 * 8192) = 4096; the untimed 4000-row shape makes no bucket.
    CHECK(c[0].size == 2240);
    CHECK(c[0].max_rows == 275);
    CHECK(c[1].max_rows == 4096);
    CHECK_FALSE(c[2].max_rows.has_value());
    CHECK(c[3].size == 3072);
    CHECK(c[3].max_rows == 4344);  // floor(sqrt(4096 * 4608)) = floor(4344.46)
    CHECK_FALSE(c[4].max_rows.has_value());
    CHECK(h.device.choice_for(2240, 275) == &c[0]);
    CHECK(h.device.choice_for(2240, 276) == &c[1]);
    CHECK(h.device.choice_for(2240, 1 << 30) == &c[2]);
    CHECK(h.device.choice_for(1024, 10) == nullptr);
  }
  SECTION("the shared configuration is kept where it is within noise of the bucket's best") {
    CHECK(c[0].chosen.variant == kDefault);  // 1% behind the wide variant: within the 2% floor
    CHECK(c[0].shared);
    CHECK(c[0].runner_up == kWide);
    CHECK(near(c[0].margin, 5.00 / 5.05 - 1));
    CHECK(*c[0].margin < 0);
    CHECK(c[1].chosen.variant == kDefault);
    CHECK(c[1].shared);
    CHECK(near(c[1].margin, 0.01));
  }
  SECTION("a bucket takes its own best where the shared configuration is beyond noise") {
    CHECK(c[2].chosen.variant == kLarge);
    CHECK_FALSE(c[2].shared);
    CHECK(c[2].runner_up == kDefault);
    CHECK(near(c[2].margin, 32.0 / 30.0 - 1));
    CHECK(c[2].median_us == 30.0);
    CHECK(c[2].shape == "big");
    CHECK(spelled(c[2].chosen.params) == spelled(variant(kLarge).params));
  }
  SECTION("non-exact and untimed variants are never chosen nor runners-up") {
    for (const Choice& choice : c) {
      CHECK(choice.chosen.variant != kIncorrect);
      CHECK(choice.chosen.variant != kUntimed);
      CHECK(choice.runner_up != kIncorrect);
    }
  }
  SECTION("the device default is the configuration chosen most often; ties go to the one timed everywhere") {
    // The global default and the wide variant are chosen twice each; the default was not timed at length 3072.
    CHECK(h.device.default_configuration.variant == kWide);
    CHECK(h.global_default.variant == kDefault);
    CHECK(spelled(h.global_default.params) == spelled(variant(kDefault).params));
  }
}

TEST_CASE("a large spread widens the noise, so the shared configuration holds", "[chooser]") {
  SweepResults r = recorded_sweep();
  r.shapes[3].variants[1] = timed(kDefault, 32.0, 0.08);  // 6.7% behind, but its repetitions spread 8%
  const Heuristics h = choose_heuristics(r);
  CHECK(h.device.choices[2].chosen.variant == kDefault);
  CHECK(h.device.choices[2].shared);
  ChooserOptions strict;
  strict.min_noise = 0;
  CHECK(choose_heuristics(recorded_sweep(), strict).device.choices[0].chosen.variant == kWide);
}

TEST_CASE("a sweep without timings gives nothing to choose from", "[chooser]") {
  SweepResults r = recorded_sweep();
  for (ShapeResult& s : r.shapes) {
    for (VariantResult& v : s.variants) v.rotated.reset();
  }
  CHECK(contains(error_of([&] { choose_heuristics(r); }), "nothing to choose from"));
}

// The policy decides which regime ranks: a chooser that ranked by one fixed
// figure (the L2-resident one, as before policies) fails here.
TEST_CASE("the chooser ranks by its policy's regime, and heuristics.yaml names the policy", "[chooser][policy]") {
  SweepResults r = recorded_sweep();
  // At 8192 rows, kLarge wins hot in L2 (30 us); out of L2 (rotated) and cold, kWide does by far.
  ShapeResult& big = r.shapes[3];
  for (VariantResult& v : big.variants) {
    if (!v.exact) continue;
    const bool wide = v.variant == kWide;
    v.rotated = Timing{wide ? 40.0 : 60.0, wide ? 40.0 : 60.0, wide ? 40.0 : 60.0, 20};
    v.cold = Timing{wide ? 50.0 : 80.0, wide ? 50.0 : 80.0, wide ? 50.0 : 80.0, 20};
  }
  big.copy_cold = Timing{30.0, 30.0, 30.0, 20};
  const auto chosen_at_big = [&](ChooserPolicy policy) {
    ChooserOptions options;
    options.policy = policy;
    const Heuristics h = choose_heuristics(r, options);
    CHECK(h.policy == policy);
    const Choice* c = h.device.choice_for(2240, 8192);
    REQUIRE(c != nullptr);
    return *c;
  };
  const Choice rotated = chosen_at_big(ChooserPolicy::rotated);
  CHECK(rotated.chosen.variant == kWide);
  CHECK(rotated.median_us == 40.0);
  const Choice cold = chosen_at_big(ChooserPolicy::cold);
  CHECK(cold.chosen.variant == kWide);
  CHECK(cold.median_us == 50.0);
  const Choice both = chosen_at_big(ChooserPolicy::both);
  CHECK(both.chosen.variant == kWide);
  CHECK(both.median_us == 40.0);  // the rotated median, as the file's comment says
  // The L2-resident figure alone would choose kLarge; this sweep has rotated figures, so it is refused.
  CHECK(contains(error_of([&] { chosen_at_big(ChooserPolicy::l2_resident); }), "this sweep has rotated figures"));
  for (VariantResult& v : big.variants) v.rotated.reset();
  for (ShapeResult& s : r.shapes) {
    for (VariantResult& v : s.variants) v.rotated.reset();
  }
  CHECK(chosen_at_big(ChooserPolicy::l2_resident).chosen.variant == kLarge);

  SECTION("heuristics.yaml writes the policy, says what it ranks by, and reads it back") {
    ChooserOptions options;
    options.policy = ChooserPolicy::cold;
    const std::string yaml = to_heuristics_yaml(choose_heuristics(r, options));
    CHECK(contains(yaml, "\npolicy: cold\n"));
    CHECK(contains(yaml, "# Policy cold: variants are ranked by the cold median"));
    CHECK(parse_heuristics_yaml(yaml, "h.yaml").policy == ChooserPolicy::cold);
    // A file from before policies was ranked by the L2-resident figure.
    std::string old = yaml;
    old.erase(old.find("policy: cold\n"), std::string("policy: cold\n").size());
    CHECK(parse_heuristics_yaml(old, "h.yaml").policy == ChooserPolicy::l2_resident);
    std::string wrong = yaml;
    wrong.replace(wrong.find("policy: cold"), std::string("policy: cold").size(), "policy: fastest");
    CHECK(contains(error_of([&] { parse_heuristics_yaml(wrong, "h.yaml"); }), "policy 'fastest' is none of"));
  }
  SECTION("the gate checks the policy's regimes, and cold always") {
    CHECK(gated_regimes(ChooserPolicy::rotated) ==
          std::vector<TimingRegime>{TimingRegime::rotated, TimingRegime::cold});
    CHECK(gated_regimes(ChooserPolicy::cold) == std::vector<TimingRegime>{TimingRegime::cold});
    CHECK(gated_regimes(ChooserPolicy::both) == std::vector<TimingRegime>{TimingRegime::rotated, TimingRegime::cold});
    CHECK(gated_regimes(ChooserPolicy::l2_resident) ==
          std::vector<TimingRegime>{TimingRegime::l2_resident, TimingRegime::cold});
  }
}

TEST_CASE("contenders are the fastest exact variants of each timed shape", "[chooser]") {
  const auto top = contenders(recorded_sweep(), 2);
  REQUIRE(top.size() == 5);  // the untimed shape has none
  CHECK(top[0].first == "edge-37");
  CHECK(top[0].second == std::vector<std::string>{kWide, kDefault});
  CHECK(top[3].first == "long-4096");
}
