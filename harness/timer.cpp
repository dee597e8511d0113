#include "timer.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <stdexcept>

#include "error.hpp"
#include "gpu_timing_primitives.hpp"
#include "statistics.hpp"

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

}  // namespace

Timer::Timer(GpuBackend& backend, TimerOptions options)
    : backend_(backend),
      options_(options),
      flush_buffer_(backend, static_cast<std::size_t>(2 * backend.gpu().l2_bytes)) {}

Timer::~Timer() = default;

TimingMethod Timer::method() const {
  TimingMethod m;
  m.hot = fmt::format("CUDA graph of {} launches replayed; CUDA events around each replay; per launch", options_.launches_per_graph);
  m.cold = fmt::format("L2 flushed (memset of {} MiB, twice the L2) before each launch; CUDA events around it",
                       flush_buffer_.bytes() >> 20);
  m.repetitions = options_.repetitions;
  m.max_spread = options_.max_spread;
  return m;
}

std::vector<double> Timer::run_benchmark(const std::string& name, const std::function<double()>& sample_us) {
  std::string failure;
  benchmark::RegisterBenchmark(name.c_str(), [&](benchmark::State& state) {
    for (auto _ : state) {
      try {
        state.SetIterationTime(sample_us() * 1e-6);
      } catch (const std::exception& e) {
        failure = e.what();
        state.SkipWithError(failure.c_str());
        break;
      }
    }
  })->UseManualTime()->Iterations(options_.iterations)->Repetitions(options_.repetitions)->ReportAggregatesOnly(false);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  if (!failure.empty()) throw error(fmt::format("timing {}: {}", name, failure));
  std::vector<double> samples_us;
  for (double s : reporter.means_s) samples_us.push_back(s * 1e6);
  if (samples_us.empty()) throw error(fmt::format("timing {}: the benchmark produced no repetition", name));
  return samples_us;
}

Measurement Timer::repeat_until_stable(const std::string& name, const std::function<double()>& sample_us) {
  Measurement best;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    Measurement m;
    m.samples_us = run_benchmark(name, sample_us);
    m.timing = timing_from_samples(m.samples_us);
    if (attempt == 0 || m.timing.spread() < best.timing.spread()) best = std::move(m);
    if (best.timing.spread() <= options_.max_spread) break;
  }
  return best;
}

Measurement Timer::hot(const std::string& name, const std::function<void()>& enqueue) {
  GpuGraph graph(backend_, [&] {
    for (int i = 0; i < options_.launches_per_graph; ++i) enqueue();
  });
  for (int i = 0; i < options_.warmup_launches; ++i) graph.launch();
  backend_.synchronize();
  GpuEvent start(backend_), end(backend_);
  return repeat_until_stable(name + "/hot", [&] {
    start.record();
    graph.launch();
    end.record();
    return 1000.0 * elapsed_ms(start, end) / options_.launches_per_graph;
  });
}

Measurement Timer::cold(const std::string& name, const std::function<void()>& enqueue) {
  for (int i = 0; i < options_.warmup_launches; ++i) enqueue();
  backend_.synchronize();
  GpuEvent start(backend_), end(backend_);
  return repeat_until_stable(name + "/cold", [&] {
    backend_.fill(flush_buffer_.address(), 0x5a, flush_buffer_.bytes());
    start.record();
    enqueue();
    end.record();
    return 1000.0 * elapsed_ms(start, end);
  });
}

}  // namespace exactune
