// Google Benchmark as the repetition engine: one benchmark per figure, manual
// time supplied by the caller's sampler (CUDA events on a GPU), and every
// sample it took (one per iteration, not a repetition's mean) handed back for
// our own statistics: comparisons (time/comparison.hpp) need the raw
// distribution, which means of several samples would narrow.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace exactune {

// Runs `repetitions` repetitions of `iterations` iterations and returns the
// iterations x repetitions samples in the order taken. `sample_us` takes one
// sample and returns it in microseconds; an exception it throws ends the
// benchmark and is rethrown as exactune::error naming `name`.
std::vector<double> run_samples(const std::string& name, int iterations, int repetitions,
                                const std::function<double()>& sample_us);

}  // namespace exactune
