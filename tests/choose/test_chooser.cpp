// The chooser on recorded timings (support/recorded_sweep.hpp, the toy
// family's): buckets of rows, the shared configuration kept within noise, the
// device and global defaults, the policy that decides which regime ranks, and
// the contenders a sweep re-times; and on a hand-made sweep with samples, the
// same-as-best set and the rule that picks from it, whatever the order of the
// variants and samples.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
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

// ------------------------------------------------------ same as best, and the rule
namespace {

// `count` samples around `median_us`, spread ±0.3% evenly: their median is `median_us`.
std::vector<double> samples_around(double median_us, int count = 15) {
  std::vector<double> samples;
  for (int i = 0; i < count; ++i) {
    samples.push_back(median_us * (1 + 0.006 * (i - (count - 1) / 2.0) / (count - 1)));
  }
  return samples;
}

Timing sampled(double median_us) {
  std::vector<double> samples = samples_around(median_us);
  Timing t{median_us, samples.front(), samples.back(), static_cast<int>(samples.size())};
  t.samples_us = std::move(samples);
  return t;
}

// `name` exact and timed with samples in every regime, with `registers`.
VariantResult sampled_variant(const std::string& name, double rotated_us, double l2_us, double cold_us, int registers) {
  VariantResult v = timed(name, rotated_us);
  v.rotated = sampled(rotated_us);
  v.l2_resident = sampled(l2_us);
  v.cold = sampled(cold_us);
  v.registers = registers;
  return v;
}

ShapeResult sampled_shape(const std::string& name, int rows, int length, std::vector<VariantResult> variants) {
  ShapeResult s = shape(name, rows, length, std::move(variants));
  s.copy_cold = Timing{3.0, 3.0, 3.0, 20};
  return s;
}

// Two sizes of one bucket each (so no configuration is shared) where the
// fastest is neither the choice nor first by name, nor is the choice first
// in any order the sweep lists its variants in:
//   length 2240: kWide is fastest rotated; kDefault (1% behind) and kLarge
//     (0.5% behind) are the same as it. kDefault is also the same as the best
//     L2-resident and cold, kLarge L2-resident only, kWide in neither: rule
//     (a) picks kDefault, though it has the most registers.
//   length 3072: the three are the same in every regime: rule (b), the
//     fewest registers, picks kDefault.
// kUntimed is 10% behind everywhere: in no set.
SweepResults sampled_sweep() {
  SweepResults r = recorded_header(exactune_test::toy_family());
  r.shapes.push_back(sampled_shape(
      "rule-a", 2048, 2240,
      {sampled_variant(kWide, 10.00, 9.50, 12.70, 40), sampled_variant(kLarge, 10.05, 9.00, 12.60, 32),
       sampled_variant(kDefault, 10.10, 9.05, 12.00, 96), sampled_variant(kUntimed, 11.00, 9.90, 13.20, 24)}));
  r.shapes.push_back(sampled_shape(
      "rule-b", 2048, 3072,
      {sampled_variant(kWide, 20.00, 18.00, 24.00, 64), sampled_variant(kLarge, 20.05, 18.05, 24.05, 48),
       sampled_variant(kDefault, 20.10, 18.10, 24.10, 32), sampled_variant(kUntimed, 22.00, 19.80, 26.40, 24)}));
  return r;
}

std::vector<std::string> names_chosen(const Heuristics& h) {
  std::vector<std::string> names;
  for (const Choice& c : h.device.choices) names.push_back(c.chosen.variant);
  return names;
}

}  // namespace

TEST_CASE("the same-as-best set and the rule that picks from it ignore the order of variants and samples",
          "[chooser][same_as_best]") {
  const Heuristics h = choose_heuristics(sampled_sweep());
  REQUIRE(h.device.choices.size() == 2);
  const std::vector<std::string> same = {kLarge, kDefault, kWide};  // by name: t128, t32, t64
  CHECK(h.device.choices[0].same_as_best == same);
  CHECK(h.device.choices[1].same_as_best == same);
  CHECK(names_chosen(h) == std::vector<std::string>{kDefault, kDefault});
  // The fastest stays the runner-up, and the margin says the choice is behind it.
  CHECK(h.device.choices[0].runner_up == kWide);
  CHECK(near(h.device.choices[0].margin, 10.00 / 10.10 - 1));

  // However the sweep lists its variants, and each figure its samples.
  std::mt19937 random(20261205);
  for (int permutation = 0; permutation < 24; ++permutation) {
    SweepResults shuffled = sampled_sweep();
    for (ShapeResult& s : shuffled.shapes) {
      std::shuffle(s.variants.begin(), s.variants.end(), random);
      for (VariantResult& v : s.variants) {
        for (TimingRegime regime : kTimingRegimes) {
          std::shuffle(v.timing(regime)->samples_us.begin(), v.timing(regime)->samples_us.end(), random);
        }
      }
    }
    INFO("permutation " << permutation << ": first listed " << shuffled.shapes[0].variants[0].variant);
    const Heuristics again = choose_heuristics(shuffled);
    CHECK(names_chosen(again) == names_chosen(h));
    CHECK(again.device.choices[0].same_as_best == same);
    CHECK(again.device.choices[1].same_as_best == same);
    CHECK(again.device.default_configuration.variant == h.device.default_configuration.variant);
    CHECK(to_heuristics_yaml(again) == to_heuristics_yaml(h));
  }

  SECTION("without samples, only an equal median is the same as the best, and the rule picks among equals") {
    SweepResults r = sampled_sweep();
    for (ShapeResult& s : r.shapes) {
      for (VariantResult& v : s.variants) {
        for (TimingRegime regime : kTimingRegimes) v.timing(regime)->samples_us.clear();
      }
    }
    const Heuristics summary = choose_heuristics(r);
    CHECK(summary.device.choices[0].same_as_best == std::vector<std::string>{kWide});
    CHECK(names_chosen(summary) == std::vector<std::string>{kWide, kWide});  // the fastest, as before
    // Equal medians: both the same as the best in every regime; rule (b) picks the one with fewer registers.
    for (VariantResult& v : r.shapes[1].variants) {
      if (v.variant != kDefault) continue;
      v.rotated->median_us = 20.00;
      v.l2_resident->median_us = 18.00;
      v.cold->median_us = 24.00;
    }
    const Heuristics tied = choose_heuristics(r);
    CHECK(tied.device.choices[1].same_as_best == std::vector<std::string>{kDefault, kWide});
    CHECK(tied.device.choices[1].chosen.variant == kDefault);
    CHECK(tied.device.choices[1].margin == 0.0);
  }
  SECTION("a larger effect size widens the set; the comparison decides, not the ranges") {
    SweepResults r = sampled_sweep();
    ChooserOptions strict;
    strict.same_effect = strict.min_noise = 0.002;  // 0.5% and 1% behind are more than this
    const Heuristics narrow = choose_heuristics(r, strict);
    CHECK(narrow.device.choices[0].same_as_best == std::vector<std::string>{kWide});
    CHECK(narrow.device.choices[0].chosen.variant == kWide);
    ChooserOptions wide;
    wide.same_effect = 0.15;
    CHECK(choose_heuristics(r, wide).device.choices[0].same_as_best ==
          std::vector<std::string>{kLarge, kUntimed, kDefault, kWide});
  }
}

TEST_CASE("the device default is chosen among configurations timed in every bucket", "[chooser][default]") {
  // The global default wins all three buckets of length 2240, but was not timed at length 3072: chosen most
  // often, and fastest wherever it was timed, it still does not serve the sizes nobody tuned.
  SweepResults r = recorded_sweep();
  r.shapes[3].variants[1] = timed(kDefault, 29.0);
  const Heuristics h = choose_heuristics(r);
  CHECK(names_chosen(h) == std::vector<std::string>{kDefault, kDefault, kDefault, kWide, kWide});
  CHECK(h.device.default_configuration.variant == kWide);

  SECTION("a variant a search strategy screened out in one bucket is not timed there") {
    SweepResults screened = recorded_sweep();
    for (VariantResult& v : screened.shapes[4].variants) {
      if (v.variant != kWide) continue;
      v.rotated.reset();
      v.l2_resident.reset();
      v.screened_out = ScreenedOut{1, {{TimingRegime::rotated, Timing{30.0, 29.0, 31.0, 3}}}};
    }
    // kWide, chosen at 4608 rows and at 37 rows within noise, is timed in every bucket but one: kLarge,
    // chosen once, is the only configuration timed everywhere.
    const Heuristics d = choose_heuristics(screened);
    CHECK(d.device.default_configuration.variant == kLarge);
  }
  SECTION("where none is timed in every bucket, the one chosen most often, as before") {
    SweepResults sparse = recorded_sweep();
    std::erase_if(sparse.shapes[4].variants, [](const VariantResult& v) { return v.variant == kLarge; });
    std::erase_if(sparse.shapes[3].variants, [](const VariantResult& v) { return v.variant == kWide; });
    const Heuristics d = choose_heuristics(sparse);
    // kDefault and kWide are chosen twice each; kWide is timed in more buckets.
    CHECK(d.device.default_configuration.variant == kWide);
  }
}

TEST_CASE("a summary-only sweep chooses as before: the fastest, its set itself", "[chooser][same_as_best]") {
  const Heuristics h = choose_heuristics(recorded_sweep());
  const auto& c = h.device.choices;
  REQUIRE(c.size() == 5);
  CHECK(names_chosen(h) == std::vector<std::string>{kDefault, kDefault, kLarge, kWide, kWide});
  CHECK(c[0].same_as_best == std::vector<std::string>{kWide});  // the shared default was kept within noise
  CHECK(c[1].same_as_best == std::vector<std::string>{kDefault});
  CHECK(c[2].same_as_best == std::vector<std::string>{kLarge});
  CHECK(c[3].same_as_best == std::vector<std::string>{kWide});
}
