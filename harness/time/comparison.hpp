// The one comparison of two timings, used wherever exactune asks "is this
// faster, the same or slower": the gate, the chooser's ties, the strategies'
// "within noise" cut and their agreement table. It compares distributions of
// samples, never ranges:
//   - the estimate is the Hodges-Lehmann shift of log(time): the median of
//     every pairwise difference log(candidate_j) - log(baseline_i), so the
//     ratio candidate / baseline that half the pairs exceed;
//   - its interval is the Mann-Whitney one (the order statistics of those
//     differences that the rank test's critical value picks), widened by any
//     between-run noise the caller knows of (a committed baseline from another
//     run: its samples say nothing of how the next run's clock differs);
//   - the verdict is three-way, plus ambiguous, against a stated effect size
//     delta (the smallest change that matters):
//       slower     the interval lies above 1 and reaches past 1 + delta: a real
//                  slowdown that may be as large as the one that matters;
//       faster     the mirror image, below 1 and past 1 / (1 + delta);
//       same       the interval lies within [1 / (1 + delta), 1 + delta]:
//                  whatever changed is smaller than delta;
//       ambiguous  anything else: the interval is too wide to tell, which the
//                  caller answers by measuring again.
// Samples are whatever the caller made comparable (each divided by its own
// run's copy, so that a clock that drifts between runs cancels); they must be
// positive and finite. Nothing here depends on the order of the samples.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace exactune {

enum class Verdict { faster, same, slower, ambiguous };

// "faster", "same", "slower", "ambiguous".
std::string_view verdict_name(Verdict verdict);

struct ComparisonOptions {
  double effect = 0.05;      // delta: the smallest relative change that matters
  double confidence = 0.95;  // of the two-sided interval
  double between_runs = 0;   // relative (robust) sd of a figure between runs: widens the interval
  // How many separate runs each side's level is the mean of: the difference of
  // the two levels varies between runs by between_runs x sqrt(1/baseline_runs
  // + 1/candidate_runs), sqrt(2) of it for one run each.
  int baseline_runs = 1;
  int candidate_runs = 1;
};

struct Comparison {
  Verdict verdict = Verdict::ambiguous;
  double ratio = 1;  // the estimate of candidate / baseline
  double low = 0;    // the interval on the ratio (0 and inf: too few samples for one)
  double high = 0;
  // One-sided Mann-Whitney p-values (normal approximation with the tie
  // correction) that the candidate is slower, and faster, than the baseline:
  // what a family-wise correction (holm_rejections) works on.
  double p_slower = 1;
  double p_faster = 1;
  std::size_t baseline_samples = 0;
  std::size_t candidate_samples = 0;

  // "+4.8% [+2.1%, +7.6%]": the change and its interval, briefly.
  std::string describe() const;
};

// Compares two sets of samples. Throws exactune::error when either set is
// empty or holds a value that is not positive and finite, and when the options
// are out of range (effect >= 0, 0 < confidence < 1, between_runs >= 0).
Comparison compare_samples(std::span<const double> baseline, std::span<const double> candidate,
                           const ComparisonOptions& options = {});

// The verdict an interval [low, high] on a ratio gives against `effect`.
Verdict verdict_of(double low, double high, double effect);

// Holm-Bonferroni over a family of one-sided tests: for each p-value, whether
// its hypothesis is rejected with the family-wise error rate at most `alpha`.
std::vector<bool> holm_rejections(const std::vector<double>& p_values, double alpha);

// The robust spread of samples: the interquartile range over the median
// (0 for fewer than two samples or a median that is not positive). One
// outlier moves it little, where it moves the range without limit.
double robust_spread(std::vector<double> samples);

// The median of samples (throws exactune::error when there are none).
double median_of(std::vector<double> samples);

}  // namespace exactune
