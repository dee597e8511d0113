// Statistics of repeated measurements: the median as the figure, min and max
// for the spread, and the rule that measures a figure again when an attempt
// was unsteady. Medians resist the odd slow sample that a mean would not.
#pragma once
#include <functional>
#include <vector>

#include <exactune/results.hpp>

namespace exactune {

// Timing over the samples (microseconds each); samples = their count, and
// samples_us the samples themselves, in the order taken.
Timing timing_from_samples(std::vector<double> samples_us);

// (max - min) / median of `values`: how far apart repeated figures are,
// relative; 0 for fewer than two values or a median that is not positive.
double relative_range(std::vector<double> values);

// The samples a figure is over, and how they were come by.
struct SteadySamples {
  std::vector<double> samples_us;
  int attempts = 0;     // how many attempts ran (1 .. max_attempts)
  bool steady = false;  // whether the kept attempt was steady
};

// Runs `attempt` (one set of samples, microseconds each) until an attempt is
// steady, its robust_spread (IQR / median, time/comparison.hpp) at most
// max_spread, or max_attempts have run. A retry replaces the unsteady attempt:
// the result is the first steady attempt's samples, or the last attempt's when
// none was. Pooling the attempts instead would keep a disturbed attempt's
// samples in the figure for good, so a figure retried once could never get its
// spread back under the limit. Nor is the steadiest attempt picked among
// several: the first steady one is, so the rule does not favour a lucky one.
// The IQR, not the range, decides: one outlier in an attempt is no reason to
// measure it again.
SteadySamples samples_until_steady(const std::function<std::vector<double>()>& attempt, int max_attempts,
                                   double max_spread);

}  // namespace exactune
