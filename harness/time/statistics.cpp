#include "time/statistics.hpp"

#include <algorithm>

#include <exactune/error.hpp>

#include "time/comparison.hpp"

namespace exactune {

Timing timing_from_samples(std::vector<double> samples_us) {
  if (samples_us.empty()) throw error("timing_from_samples: no samples");
  std::vector<double> sorted = samples_us;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  Timing t;
  t.median_us = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  t.min_us = sorted.front();
  t.max_us = sorted.back();
  t.samples = static_cast<int>(n);
  t.samples_us = std::move(samples_us);
  return t;
}

double relative_range(std::vector<double> values) {
  if (values.size() < 2) return 0;
  return timing_from_samples(std::move(values)).spread();
}

SteadySamples samples_until_steady(const std::function<std::vector<double>()>& attempt, int max_attempts,
                                   double max_spread) {
  SteadySamples kept;
  for (int n = 0; n < std::max(1, max_attempts); ++n) {
    kept.samples_us = attempt();
    kept.attempts = n + 1;
    if (kept.samples_us.empty()) throw error("samples_until_steady: an attempt took no samples");
    kept.steady = robust_spread(kept.samples_us) <= max_spread;
    if (kept.steady) break;
  }
  return kept;
}

}  // namespace exactune
