#include "time/timer.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "time/benchmark_runner.hpp"
#include <exactune/error.hpp>
#include "backends/gpu/gpu_timing_primitives.hpp"
#include "time/statistics.hpp"

namespace exactune {

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

Measurement Timer::repeat_until_stable(const std::string& name, const std::function<double()>& sample_us) {
  Measurement m;
  m.samples_us = samples_until_steady(
      [&] { return run_repetitions(name, options_.iterations, options_.repetitions, sample_us); },
      options_.max_attempts, options_.max_spread);
  m.timing = timing_from_samples(m.samples_us);
  return m;
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
