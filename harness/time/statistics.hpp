// Statistics of repeated measurements: the median as the figure, min and max
// for the spread. Medians resist the odd slow repetition that a mean would not.
#pragma once
#include <vector>

#include <exactune/results.hpp>

namespace exactune {

// Timing over the samples (microseconds each); samples = their count.
Timing timing_from_samples(std::vector<double> samples_us);

}  // namespace exactune
