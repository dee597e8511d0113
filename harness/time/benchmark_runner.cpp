#include "time/benchmark_runner.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include <exactune/error.hpp>

namespace exactune {
namespace {

// Counts the repetitions Google Benchmark ran, and prints nothing: the
// samples themselves are kept as they are taken.
class CountingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Iteration && run.iterations > 0) ++repetitions;
    }
  }
  std::size_t repetitions = 0;
};

void initialize_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    int argc = 1;
    char name[] = "exactune";
    char* argv[] = {name, nullptr};
    benchmark::Initialize(&argc, argv);
  });
}

}  // namespace

std::vector<double> run_samples(const std::string& name, int iterations, int repetitions,
                                const std::function<double()>& sample_us) {
  initialize_once();
  std::string failure;
  std::vector<double> samples_us;
  samples_us.reserve(static_cast<std::size_t>(std::max(0, iterations)) * std::max(0, repetitions));
  benchmark::RegisterBenchmark(name.c_str(),
                               [&](benchmark::State& state) {
                                 for (auto _ : state) {
                                   try {
                                     const double us = sample_us();
                                     samples_us.push_back(us);
                                     state.SetIterationTime(us * 1e-6);
                                   } catch (const std::exception& e) {
                                     failure = e.what();
                                     state.SkipWithError(failure.c_str());
                                     break;
                                   }
                                 }
                               })
      ->UseManualTime()
      ->Iterations(iterations)
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(false);
  CountingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, ".");
  benchmark::ClearRegisteredBenchmarks();
  if (!failure.empty()) throw error(fmt::format("timing {}: {}", name, failure));
  const std::size_t asked = static_cast<std::size_t>(iterations) * static_cast<std::size_t>(repetitions);
  if (reporter.repetitions != static_cast<std::size_t>(repetitions) || samples_us.size() != asked) {
    throw error(fmt::format("timing {}: {} repetitions of {} iterations asked, {} repetitions and {} samples taken",
                            name, repetitions, iterations, reporter.repetitions, samples_us.size()));
  }
  return samples_us;
}

}  // namespace exactune
