#include "time/statistics.hpp"

#include <algorithm>

#include <exactune/error.hpp>

namespace exactune {

Timing timing_from_samples(std::vector<double> samples_us) {
  if (samples_us.empty()) throw error("timing_from_samples: no samples");
  std::sort(samples_us.begin(), samples_us.end());
  const std::size_t n = samples_us.size();
  Timing t;
  t.median_us = n % 2 ? samples_us[n / 2] : (samples_us[n / 2 - 1] + samples_us[n / 2]) / 2;
  t.min_us = samples_us.front();
  t.max_us = samples_us.back();
  t.samples = static_cast<int>(n);
  return t;
}

double relative_range(std::vector<double> values) {
  if (values.size() < 2) return 0;
  return timing_from_samples(std::move(values)).spread();
}

std::vector<double> samples_until_steady(const std::function<std::vector<double>()>& attempt, int max_attempts,
                                         double max_spread) {
  std::vector<double> all;
  for (int n = 0; n < std::max(1, max_attempts); ++n) {
    const std::vector<double> samples = attempt();
    all.insert(all.end(), samples.begin(), samples.end());
    if (timing_from_samples(samples).spread() <= max_spread) break;
  }
  return all;
}

}  // namespace exactune
