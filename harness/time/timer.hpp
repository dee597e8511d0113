// The timer: Google Benchmark drives repetitions with manual time taken from
// CUDA events, so that measurement and statistics stay apart from reporting.
//   hot:  a CUDA graph of `launches_per_graph` launches, replayed; the events
//         around one replay over the launches is one sample. No launch overhead:
//         the figure graph-captured serving sees.
//   cold: L2 flushed (a memset over twice the L2) before every launch; events
//         around that single launch.
// Each repetition's mean is one sample of the returned Timing; a figure whose
// spread exceeds max_spread is measured again (up to max_attempts), and the
// Timing is over every attempt's samples (samples_until_steady): the steadiest
// attempt alone would be the luckiest, biased low.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "backends/gpu/gpu_backend.hpp"
#include <exactune/results.hpp>

namespace exactune {

struct TimerOptions {
  int launches_per_graph = 20;
  int iterations = 10;   // samples per repetition
  int repetitions = 7;
  int warmup_launches = 3;
  double max_spread = 0.05;
  int max_attempts = 3;
};

struct Measurement {
  Timing timing;
  std::vector<double> samples_us;  // the repetition means the timing is over
};

class Timer {
 public:
  Timer(GpuBackend& backend, TimerOptions options);
  ~Timer();

  // `enqueue` queues one launch (or one chain of launches) on the backend's
  // stream without waiting. `name` labels the benchmark.
  Measurement hot(const std::string& name, const std::function<void()>& enqueue);
  Measurement cold(const std::string& name, const std::function<void()>& enqueue);

  TimingMethod method() const;
  const TimerOptions& options() const { return options_; }

 private:
  Measurement repeat_until_stable(const std::string& name, const std::function<double()>& sample_us);

  GpuBackend& backend_;
  TimerOptions options_;
  DeviceBuffer flush_buffer_;
};

}  // namespace exactune
