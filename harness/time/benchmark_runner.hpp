// Google Benchmark as the repetition engine: one benchmark per figure, manual
// time supplied by the caller's sampler (CUDA events on a GPU), one value per
// repetition (the mean of its iterations) handed back for our own statistics.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace exactune {

// `sample_us` takes one sample and returns it in microseconds; an exception it
// throws ends the benchmark and is rethrown as exactune::error naming `name`.
std::vector<double> run_repetitions(const std::string& name, int iterations, int repetitions,
                                    const std::function<double()>& sample_us);

}  // namespace exactune
