// Statistics of repeated measurements: the median as the figure, min and max
// for the spread. Medians resist the odd slow repetition that a mean would not.
#pragma once
#include <functional>
#include <vector>

#include <exactune/results.hpp>

namespace exactune {

// Timing over the samples (microseconds each); samples = their count.
Timing timing_from_samples(std::vector<double> samples_us);

// (max - min) / median of `values`: how far apart repeated figures are,
// relative; 0 for fewer than two values or a median that is not positive.
double relative_range(std::vector<double> values);

// Runs `attempt` (one set of repetitions, microseconds each) until an attempt
// is steady (its own spread at most max_spread) or max_attempts have run, and
// returns every sample of every attempt. The figure is their median: keeping
// only the steadiest attempt would pick the luckiest one and bias it low.
std::vector<double> samples_until_steady(const std::function<std::vector<double>()>& attempt, int max_attempts,
                                         double max_spread);

}  // namespace exactune
