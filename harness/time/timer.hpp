// The timer: Google Benchmark drives repetitions with manual time taken from
// CUDA events, so that measurement and statistics stay apart from reporting.
// One figure per timing regime (results.hpp):
//   rotated:     a CUDA graph whose launches cycle through `copies` copies of
//                the inputs (rotation.hpp: together past twice the L2), replayed;
//                the events around one replay over its launches is one sample.
//                No launch overhead, and no data left in L2 by the launch before:
//                the figure graph-captured serving sees.
//   l2_resident: the same graph over one set of buffers (`launches_per_graph`
//                launches): whatever fits in the L2 stays there, so a shape
//                smaller than it is timed from L2. Labelled as such everywhere.
//   cold:        L2 flushed (a memset over twice the L2) before every launch;
//                events around that single launch.
// Each repetition's mean is one sample of the returned Timing; a figure whose
// robust spread exceeds max_spread is measured again (up to max_attempts), the
// new attempt replacing the unsteady one (samples_until_steady).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <exactune/results.hpp>

#include "backends/gpu/gpu_backend.hpp"

namespace exactune {

struct TimerOptions {
  int launches_per_graph = 20;
  int iterations = 10;  // samples per repetition
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
  // stream without waiting, on copy `copy` of the inputs (0 .. copies - 1) for
  // the rotated regime, on the only one otherwise. `name` labels the benchmark.
  using Enqueue = std::function<void(int copy)>;
  Measurement rotated(const std::string& name, int copies, const Enqueue& enqueue);
  Measurement l2_resident(const std::string& name, const Enqueue& enqueue);
  Measurement cold(const std::string& name, const Enqueue& enqueue);
  // The regime's figure: rotated over `copies`, the others on copy 0.
  Measurement measure(TimingRegime regime, const std::string& name, int copies, const Enqueue& enqueue);

  TimingMethod method() const;
  const TimerOptions& options() const { return options_; }

 private:
  Measurement repeat_until_stable(const std::string& name, int iterations, const std::function<double()>& sample_us);
  Measurement graph_replay(const std::string& name, int launches, int copies, const Enqueue& enqueue);

  GpuBackend& backend_;
  TimerOptions options_;
  DeviceBuffer flush_buffer_;
};

}  // namespace exactune
