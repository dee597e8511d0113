// The one comparison of two timings (time/comparison.hpp), on seeded synthetic
// samples: a known shift gives its verdict, often enough to meet the gate's
// goals (caught at +5% and +10%, quiet on no change); one outlier fails
// nothing; an interval too wide to tell is ambiguous; the answer does not
// depend on the samples' order; between-run noise widens the interval;
// Holm-Bonferroni keeps a family of figures to one false-alarm budget.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "time/comparison.hpp"

using namespace exactune;

namespace {

// Timings around `median` with a relative noise `sd`, from a generator whose
// sequence the C++ standard fixes (mt19937_64), by Box-Muller: the same on
// every standard library, where std::normal_distribution is not.
class SyntheticTimer {
 public:
  explicit SyntheticTimer(std::uint64_t seed) : engine_(seed) {}

  double normal() {
    const double u1 = (static_cast<double>(engine_() >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = static_cast<double>(engine_() >> 11) / 9007199254740992.0;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }

  std::vector<double> samples(int count, double median, double sd) {
    std::vector<double> out;
    for (int i = 0; i < count; ++i) out.push_back(median * std::exp(sd * normal()));
    return out;
  }

 private:
  std::mt19937_64 engine_;
};

// How many of `trials` comparisons of `count` samples each, the candidate
// `shift` slower than the baseline at relative noise `sd`, end in `verdict`.
int count_verdicts(Verdict verdict, double shift, double sd, int count, int trials, std::uint64_t seed) {
  SyntheticTimer timer(seed);
  int hits = 0;
  for (int t = 0; t < trials; ++t) {
    const std::vector<double> base = timer.samples(count, 10.0, sd);
    const std::vector<double> cand = timer.samples(count, 10.0 * (1 + shift), sd);
    hits += compare_samples(base, cand).verdict == verdict;
  }
  return hits;
}

}  // namespace

TEST_CASE("a known shift gives its verdict", "[comparison]") {
  SyntheticTimer timer(1);
  const std::vector<double> base = timer.samples(30, 10.0, 0.01);
  const auto verdict = [&](double factor) {
    return compare_samples(base, timer.samples(30, 10.0 * factor, 0.01)).verdict;
  };
  CHECK(verdict(1.10) == Verdict::slower);
  CHECK(verdict(1.06) == Verdict::slower);
  CHECK(verdict(1.00) == Verdict::same);
  CHECK(verdict(1.01) == Verdict::same);  // real, but under the 5% that matters
  CHECK(verdict(0.90) == Verdict::faster);

  const Comparison c = compare_samples(base, timer.samples(30, 11.0, 0.01));
  CHECK(c.ratio == Approx(1.10).epsilon(0.01));
  CHECK(c.low < c.ratio);
  CHECK(c.high > c.ratio);
  CHECK(c.p_slower < 1e-6);
  CHECK(c.p_faster > 0.99);
  CHECK(c.baseline_samples == 30);
  CHECK(c.candidate_samples == 30);
  INFO(c.describe());
  CHECK(c.describe() ==
        fmt::format("{:+.1f}% [{:+.1f}%, {:+.1f}%]", (c.ratio - 1) * 100, (c.low - 1) * 100, (c.high - 1) * 100));
}

TEST_CASE("the verdict meets the gate's goals on many seeded runs: caught at +5% and +10%, quiet on no change",
          "[comparison]") {
  // 1.5% noise a sample, 30 samples a figure: a cold figure of a few us.
  CHECK(count_verdicts(Verdict::slower, 0.10, 0.015, 30, 200, 11) >= 195);
  CHECK(count_verdicts(Verdict::slower, 0.05, 0.015, 30, 200, 12) >= 160);
  CHECK(count_verdicts(Verdict::slower, 0.00, 0.015, 30, 200, 13) == 0);
  CHECK(count_verdicts(Verdict::faster, 0.00, 0.015, 30, 200, 14) == 0);
  CHECK(count_verdicts(Verdict::same, 0.00, 0.015, 30, 200, 15) >= 190);
}

TEST_CASE("one outlier fails nothing: a +1.9 us launch among 30 of a 4.9 us cold figure", "[comparison]") {
  SyntheticTimer timer(2);
  const std::vector<double> base = timer.samples(30, 4.9, 0.01);
  std::vector<double> cand = timer.samples(30, 4.9, 0.01);
  cand[17] += 1.9;
  const Comparison c = compare_samples(base, cand);
  INFO(c.describe());
  CHECK(c.verdict == Verdict::same);
  // Its range would have called the figure 39% noisy; the robust spread barely moves.
  CHECK(robust_spread(cand) < 0.03);
  CHECK(robust_spread(cand) == Approx(robust_spread(timer.samples(30, 4.9, 0.01))).margin(0.01));
}

TEST_CASE("an interval too wide to tell is ambiguous, and more samples settle it", "[comparison]") {
  SyntheticTimer timer(3);
  const Comparison few = compare_samples(timer.samples(5, 10.0, 0.08), timer.samples(5, 10.3, 0.08));
  INFO(few.describe());
  CHECK(few.verdict == Verdict::ambiguous);
  const Comparison many = compare_samples(timer.samples(200, 10.0, 0.08), timer.samples(200, 10.3, 0.08));
  INFO(many.describe());
  CHECK(many.verdict == Verdict::same);
  // Two samples a side are too few for any interval at 95%.
  const Comparison two = compare_samples(std::vector<double>{1, 1.1}, std::vector<double>{2, 2.1});
  CHECK(two.low == 0);
  CHECK(std::isinf(two.high));
  CHECK(two.verdict == Verdict::ambiguous);
}

TEST_CASE("the answer does not depend on the order of the samples", "[comparison]") {
  SyntheticTimer timer(4);
  std::vector<double> base = timer.samples(25, 10.0, 0.02), cand = timer.samples(31, 10.4, 0.02);
  const Comparison first = compare_samples(base, cand);
  std::mt19937_64 shuffle(5);
  for (int i = 0; i < 5; ++i) {
    std::shuffle(base.begin(), base.end(), shuffle);
    std::shuffle(cand.begin(), cand.end(), shuffle);
    const Comparison again = compare_samples(base, cand);
    CHECK(again.ratio == first.ratio);
    CHECK(again.low == first.low);
    CHECK(again.high == first.high);
    CHECK(again.p_slower == first.p_slower);
    CHECK(again.verdict == first.verdict);
  }
}

TEST_CASE("between-run noise widens the interval: a committed baseline cannot claim same-run precision",
          "[comparison]") {
  SyntheticTimer timer(6);
  const std::vector<double> base = timer.samples(30, 10.0, 0.005), cand = timer.samples(30, 10.3, 0.005);
  const Comparison same_run = compare_samples(base, cand);
  const Comparison across_runs = compare_samples(base, cand, {.between_runs = 0.02});
  CHECK(across_runs.ratio == same_run.ratio);
  CHECK(across_runs.low < same_run.low);
  CHECK(across_runs.high > same_run.high);
  CHECK(across_runs.p_slower > same_run.p_slower);
  CHECK(same_run.verdict == Verdict::same);          // +3%, real, under 5%
  CHECK(across_runs.verdict == Verdict::ambiguous);  // 2% between runs: could be past 5%
}

TEST_CASE("the between-run widening shrinks as either side pools separate runs", "[comparison]") {
  SyntheticTimer timer(7);
  const std::vector<double> base = timer.samples(30, 10.0, 0.005), cand = timer.samples(30, 10.0, 0.005);
  const auto half_width = [](const Comparison& c) { return (std::log(c.high) - std::log(c.low)) / 2; };
  const Comparison one = compare_samples(base, cand, {.between_runs = 0.02});
  const Comparison three = compare_samples(base, cand, {.between_runs = 0.02, .candidate_runs = 3});
  const Comparison both =
      compare_samples(base, cand, {.between_runs = 0.02, .baseline_runs = 1000000, .candidate_runs = 1000000});
  CHECK(three.ratio == one.ratio);
  CHECK(half_width(three) < half_width(one));
  CHECK(three.p_slower != one.p_slower);
  // The widening is z x sd x sqrt(1/a + 1/b): sqrt(2) for one run each, sqrt(4/3) with three candidate runs.
  const double within = half_width(compare_samples(base, cand));
  const auto widening = [&](const Comparison& c) { return std::sqrt(half_width(c) * half_width(c) - within * within); };
  CHECK(widening(one) == Approx(1.959964 * std::sqrt(2.0) * std::log1p(0.02)).epsilon(1e-4));
  CHECK(widening(three) / widening(one) == Approx(std::sqrt((1 + 1.0 / 3) / 2)).epsilon(1e-4));
  CHECK(half_width(both) == Approx(within).epsilon(1e-3));  // levels known exactly: the same run's precision
  CHECK_THROWS_AS(compare_samples(base, cand, {.between_runs = 0.02, .candidate_runs = 0}), error);
  CHECK_THROWS_AS(compare_samples(base, cand, {.baseline_runs = -1}), error);
}

TEST_CASE("ties and identical samples: no evidence either way", "[comparison]") {
  const std::vector<double> flat(10, 3.0);
  const Comparison c = compare_samples(flat, flat);
  CHECK(c.ratio == 1);
  CHECK(c.p_slower == 1);
  CHECK(c.p_faster == 1);
  CHECK(c.verdict == Verdict::same);
}

TEST_CASE("the verdict of an interval against the effect size", "[comparison]") {
  CHECK(verdict_of(1.01, 1.06, 0.05) == Verdict::slower);
  CHECK(verdict_of(1.01, 1.04, 0.05) == Verdict::same);
  CHECK(verdict_of(0.99, 1.04, 0.05) == Verdict::same);
  CHECK(verdict_of(0.99, 1.06, 0.05) == Verdict::ambiguous);
  CHECK(verdict_of(0.90, 0.99, 0.05) == Verdict::faster);
  CHECK(verdict_of(0.96, 0.99, 0.05) == Verdict::same);
  CHECK(verdict_of(0.90, 1.01, 0.05) == Verdict::ambiguous);
}

TEST_CASE("Holm-Bonferroni rejects step-down and stops at the first it cannot", "[comparison]") {
  // alpha 0.05 over 4: 0.01 <= 0.0125, 0.015 <= 0.0167, 0.03 > 0.025: stop.
  CHECK(holm_rejections({0.03, 0.01, 0.5, 0.015}, 0.05) == std::vector<bool>{false, true, false, true});
  CHECK(holm_rejections({0.001, 0.001}, 0.05) == std::vector<bool>{true, true});
  CHECK(holm_rejections({0.04}, 0.05) == std::vector<bool>{true});
  CHECK(holm_rejections({0.04, 0.04}, 0.05) == std::vector<bool>{false, false});
  CHECK(holm_rejections({}, 0.05).empty());
}

TEST_CASE("samples that are no positive finite times are refused", "[comparison]") {
  const std::vector<double> good{1, 2, 3};
  CHECK_THROWS_AS(compare_samples({}, good), error);
  CHECK_THROWS_AS(compare_samples(good, std::vector<double>{1, -2}), error);
  CHECK_THROWS_AS(compare_samples(good, std::vector<double>{1, NAN}), error);
  CHECK_THROWS_AS(compare_samples(good, good, {.effect = -0.1}), error);
  CHECK_THROWS_AS(compare_samples(good, good, {.confidence = 1}), error);
  CHECK(median_of({3, 1, 2, 10}) == 2.5);
  CHECK_THROWS_AS(median_of({}), error);
  CHECK(robust_spread({5}) == 0);
}
