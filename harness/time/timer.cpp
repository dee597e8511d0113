#include "time/timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <exactune/error.hpp>

#include "backends/gpu/gpu_timing_primitives.hpp"
#include "time/benchmark_runner.hpp"
#include "time/rotation.hpp"
#include "time/statistics.hpp"

namespace exactune {

CapturedGraphs::CapturedGraphs() = default;
CapturedGraphs::~CapturedGraphs() = default;
CapturedGraphs::CapturedGraphs(CapturedGraphs&&) noexcept = default;
CapturedGraphs& CapturedGraphs::operator=(CapturedGraphs&&) noexcept = default;

Timer::Timer(GpuBackend& backend, TimerOptions options)
    : backend_(backend),
      options_(options),
      flush_buffer_(backend, static_cast<std::size_t>(2 * backend.gpu().l2_bytes)),
      sm_clock_(backend.gpu().pci_bus_id, backend.gpu().sm_clock_khz) {}

Timer::~Timer() = default;

TimingMethod Timer::method() const {
  TimingMethod m;
  // The replay's launches: launches_per_graph, unless the rule of replay_launches() may take fewer.
  const std::string launches =
      options_.min_replay_us > 0
          ? fmt::format("L = {}, or fewer (down to 1) where fewer move {} us of the GPU's peak memory bandwidth",
                        options_.launches_per_graph, options_.min_replay_us)
          : fmt::format("L = {}", options_.launches_per_graph);
  m.rotated = fmt::format(
      "CUDA graphs cycling through K copies of the inputs, K the fewest whose bytes reach twice the L2 (at most {}): "
      "one graph of K x ceil(L/K) launches, or past L copies graphs of at most L consecutive copies replayed in "
      "turn, {}; CUDA events around each replay, one sample per replay; per launch",
      RotationLimits{}.max_copies, launches);
  m.l2_resident = fmt::format(
      "CUDA graph of L launches on the same buffers replayed, {}; CUDA events around each replay, one sample per "
      "replay; per launch",
      launches);
  m.cold = fmt::format(
      "L2 flushed (memset of {} MiB, twice the L2) before each launch; CUDA events around it, one sample per launch",
      flush_buffer_.bytes() >> 20);
  m.repetitions = options_.samples();
  m.max_spread = options_.max_spread;
  return m;
}

Measurement Timer::repeat_until_stable(const std::string& name, const std::function<double()>& sample_us) {
  SteadySamples kept =
      samples_until_steady([&] { return run_samples(name, options_.iterations, options_.repetitions, sample_us); },
                           options_.max_attempts, options_.max_spread);
  Measurement m;
  m.timing = timing_from_samples(kept.samples_us);
  m.samples_us = std::move(kept.samples_us);
  m.attempts = kept.attempts;
  m.steady = kept.steady;
  return m;
}

// Every graph is captured before any is timed; sample i replays graph
// i % graphs, so that the copies are cycled through in order however many
// graphs hold them, and is that replay's time over its own launches.
Measurement Timer::graph_replays(const std::string& name, const std::vector<std::vector<int>>& graphs,
                                 const Enqueue& enqueue, std::vector<std::unique_ptr<GpuGraph>>& captured) {
  if (captured.size() != graphs.size()) {
    captured.clear();
    for (const std::vector<int>& copies : graphs) {
      captured.push_back(std::make_unique<GpuGraph>(backend_, [&] {
        for (int copy : copies) enqueue(copy);
      }));
    }
  }
  for (int i = 0; i < options_.warmup_launches; ++i) {
    for (const std::unique_ptr<GpuGraph>& graph : captured) graph->launch();
  }
  backend_.synchronize();
  GpuEvent start(backend_), end(backend_);
  std::size_t next = 0;
  return repeat_until_stable(name, [&] {
    const std::size_t g = next++ % captured.size();
    start.record();
    captured[g]->launch();
    end.record();
    return 1000.0 * elapsed_ms(start, end) / static_cast<double>(graphs[g].size());
  });
}

Measurement Timer::rotated(const std::string& name, int copies, int launches, const Enqueue& enqueue,
                           CapturedGraphs& graphs) {
  return graph_replays(name + "/rotated", rotated_graphs(copies, launches), enqueue,
                       graphs.by_regime_[TimingRegime::rotated]);
}

Measurement Timer::l2_resident(const std::string& name, int launches, const Enqueue& enqueue, CapturedGraphs& graphs) {
  return graph_replays(name + "/l2_resident", {std::vector<int>(std::max(1, launches), 0)}, enqueue,
                       graphs.by_regime_[TimingRegime::l2_resident]);
}

Measurement Timer::cold(const std::string& name, const Enqueue& enqueue) {
  for (int i = 0; i < options_.warmup_launches; ++i) enqueue(0);
  backend_.synchronize();
  GpuEvent start(backend_), end(backend_);
  return repeat_until_stable(name + "/cold", [&] {
    backend_.fill(flush_buffer_.address(), 0x5a, flush_buffer_.bytes());
    start.record();
    enqueue(0);
    end.record();
    return 1000.0 * elapsed_ms(start, end);
  });
}

Measurement Timer::measure(TimingRegime regime, const std::string& name, int copies, int launches,
                           const Enqueue& enqueue, CapturedGraphs& graphs) {
  Measurement m;
  switch (regime) {
    case TimingRegime::rotated: m = rotated(name, copies, launches, enqueue, graphs); break;
    case TimingRegime::l2_resident: m = l2_resident(name, launches, enqueue, graphs); break;
    case TimingRegime::cold: m = cold(name, enqueue); break;
    default: throw error("Timer::measure: unknown regime");
  }
  // Right after the last sample, before the GPU idles down: the clock the samples ran at.
  m.sm_clock_mhz = sm_clock_.read_mhz();
  return m;
}

}  // namespace exactune
