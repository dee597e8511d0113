#include "time/timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include <exactune/error.hpp>

#include "backends/gpu/gpu_timing_primitives.hpp"
#include "time/benchmark_runner.hpp"
#include "time/rotation.hpp"
#include "time/statistics.hpp"

namespace exactune {

Timer::Timer(GpuBackend& backend, TimerOptions options)
    : backend_(backend),
      options_(options),
      flush_buffer_(backend, static_cast<std::size_t>(2 * backend.gpu().l2_bytes)) {}

Timer::~Timer() = default;

TimingMethod Timer::method() const {
  TimingMethod m;
  m.rotated = fmt::format(
      "CUDA graph cycling through K copies of the inputs, K the fewest whose bytes reach twice the L2 (at most {}), "
      "K x ceil({}/K) launches, replayed; CUDA events around each replay; per launch",
      RotationLimits{}.max_copies, options_.launches_per_graph);
  m.l2_resident =
      fmt::format("CUDA graph of {} launches on the same buffers replayed; CUDA events around each replay; per launch",
                  options_.launches_per_graph);
  m.cold = fmt::format("L2 flushed (memset of {} MiB, twice the L2) before each launch; CUDA events around it",
                       flush_buffer_.bytes() >> 20);
  m.repetitions = options_.repetitions;
  m.max_spread = options_.max_spread;
  return m;
}

Measurement Timer::repeat_until_stable(const std::string& name, int iterations,
                                       const std::function<double()>& sample_us) {
  Measurement m;
  m.samples_us =
      samples_until_steady([&] { return run_repetitions(name, iterations, options_.repetitions, sample_us); },
                           options_.max_attempts, options_.max_spread)
          .samples_us;
  m.timing = timing_from_samples(m.samples_us);
  return m;
}

// One graph of `launches` launches, launch i on copy i % copies. A repetition
// holds about as many launches as an L2-resident one (iterations x
// launches_per_graph), so a graph of thousands of launches is replayed fewer
// times rather than costing a hundredfold.
Measurement Timer::graph_replay(const std::string& name, int launches, int copies, const Enqueue& enqueue) {
  GpuGraph graph(backend_, [&] {
    for (int i = 0; i < launches; ++i) enqueue(i % copies);
  });
  for (int i = 0; i < options_.warmup_launches; ++i) graph.launch();
  backend_.synchronize();
  GpuEvent start(backend_), end(backend_);
  const int iterations = std::max(1, options_.iterations * options_.launches_per_graph / std::max(1, launches));
  return repeat_until_stable(name, iterations, [&] {
    start.record();
    graph.launch();
    end.record();
    return 1000.0 * elapsed_ms(start, end) / launches;
  });
}

Measurement Timer::rotated(const std::string& name, int copies, const Enqueue& enqueue) {
  const int k = std::max(1, copies);
  return graph_replay(name + "/rotated", rotated_launches(k, options_.launches_per_graph), k, enqueue);
}

Measurement Timer::l2_resident(const std::string& name, const Enqueue& enqueue) {
  return graph_replay(name + "/l2_resident", options_.launches_per_graph, 1, enqueue);
}

Measurement Timer::cold(const std::string& name, const Enqueue& enqueue) {
  for (int i = 0; i < options_.warmup_launches; ++i) enqueue(0);
  backend_.synchronize();
  GpuEvent start(backend_), end(backend_);
  return repeat_until_stable(name + "/cold", options_.iterations, [&] {
    backend_.fill(flush_buffer_.address(), 0x5a, flush_buffer_.bytes());
    start.record();
    enqueue(0);
    end.record();
    return 1000.0 * elapsed_ms(start, end);
  });
}

Measurement Timer::measure(TimingRegime regime, const std::string& name, int copies, const Enqueue& enqueue) {
  switch (regime) {
    case TimingRegime::rotated: return rotated(name, copies, enqueue);
    case TimingRegime::l2_resident: return l2_resident(name, enqueue);
    case TimingRegime::cold: return cold(name, enqueue);
  }
  throw error("Timer::measure: unknown regime");
}

}  // namespace exactune
