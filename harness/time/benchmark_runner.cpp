#include "time/benchmark_runner.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <mutex>

#include <exactune/error.hpp>

namespace exactune {
namespace {

// Collects each repetition's mean time per iteration (seconds), and prints nothing.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.iterations == 0) continue;
      means_s.push_back(run.real_accumulated_time / static_cast<double>(run.iterations));
    }
  }
  std::vector<double> means_s;
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

std::vector<double> run_repetitions(const std::string& name, int iterations, int repetitions,
                                    const std::function<double()>& sample_us) {
  initialize_once();
  std::string failure;
  benchmark::RegisterBenchmark(name.c_str(),
                               [&](benchmark::State& state) {
                                 for (auto _ : state) {
                                   try {
                                     state.SetIterationTime(sample_us() * 1e-6);
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
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, ".");
  benchmark::ClearRegisteredBenchmarks();
  if (!failure.empty()) throw error(fmt::format("timing {}: {}", name, failure));
  std::vector<double> samples_us;
  for (double s : reporter.means_s) samples_us.push_back(s * 1e6);
  if (samples_us.size() != static_cast<std::size_t>(repetitions)) {
    throw error(fmt::format("timing {}: {} repetitions asked, {} reported", name, repetitions, samples_us.size()));
  }
  return samples_us;
}

}  // namespace exactune
