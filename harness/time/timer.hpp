// The timer: Google Benchmark drives repetitions with manual time taken from
// CUDA events, so that measurement and statistics stay apart from reporting.
// One figure per timing regime (results.hpp), each over its raw samples:
//   rotated:     CUDA graphs whose launches cycle through `copies` copies of
//                the inputs (rotation.hpp: together past twice the L2): one
//                graph of K x ceil(L / K) launches, or, past L copies, the
//                copies split in order among graphs of at most L launches
//                replayed in turn. No launch overhead, and no data left in L2
//                by the launch before: the figure graph-captured serving sees.
//   l2_resident: a graph of L launches over one set of buffers, replayed:
//                whatever fits in the L2 stays there, so a shape smaller than
//                it is timed from L2. Labelled as such everywhere.
//                L, the launches of a replay, is launches_per_graph, or fewer
//                for a shape so large that fewer keep a replay busy for
//                min_replay_us (replay_launches(), rotation.hpp).
//   cold:        L2 flushed (a memset over twice the L2) before every launch.
// A sample is one replay's per-launch time (events around the replay, over its
// launches) in the hot regimes, and one launch's time (events around it) cold:
// never a mean of several, so that comparisons (time/comparison.hpp) see the
// distribution. A figure is iterations x repetitions samples; one whose robust
// spread (IQR / median) exceeds max_spread is measured again, up to
// max_attempts, the new attempt replacing the unsteady one (samples_until_steady).
// The graphs of one thing timed are captured once, into the caller's
// CapturedGraphs, and replayed by each later figure of it: a screen's next
// rounds, its full figure and the noise passes capture nothing again.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <exactune/results.hpp>

#include "backends/gpu/gpu_backend.hpp"
#include "backends/gpu/sm_clock.hpp"

namespace exactune {

class GpuGraph;

struct TimerOptions {
  int launches_per_graph = 20;
  // A hot replay holds fewer launches than launches_per_graph where fewer already last this long at the GPU's
  // peak memory bandwidth (replay_launches(), rotation.hpp); 0: always launches_per_graph.
  double min_replay_us = 500;
  // A figure's samples: `repetitions` Google Benchmark repetitions of
  // `iterations` samples each, 70 by default: as many replays (or cold
  // launches) as the 7 means of 10 that a figure was before it kept its raw
  // samples, so a figure costs what it did and a comparison has enough
  // samples for a Mann-Whitney interval.
  int iterations = 10;
  int repetitions = 7;
  int warmup_launches = 3;
  double max_spread = 0.05;  // robust spread (IQR / median) of an attempt that is steady
  int max_attempts = 3;

  int samples() const { return iterations * repetitions; }
};

struct Measurement {
  Timing timing;  // over samples_us, which it holds as well
  std::vector<double> samples_us;
  int attempts = 1;    // how many attempts ran; the samples are the last one's
  bool steady = true;  // whether the kept attempt's robust spread was within max_spread
  // The SM clock read right after the samples (backends/gpu/sm_clock.hpp); none where it cannot be read.
  std::optional<int> sm_clock_mhz;
};

// The graphs of one thing timed (a variant, the copy, the reference chain) at
// one shape, per hot regime, captured by its first figure there and replayed
// by the later ones. The launches they hold never change: the same kernel on
// the same buffers. Owned by the caller, which knows how long they stay valid.
class CapturedGraphs {
 public:
  CapturedGraphs();
  ~CapturedGraphs();
  CapturedGraphs(CapturedGraphs&&) noexcept;
  CapturedGraphs& operator=(CapturedGraphs&&) noexcept;

 private:
  friend class Timer;
  std::map<TimingRegime, std::vector<std::unique_ptr<GpuGraph>>> by_regime_;
};

class Timer {
 public:
  Timer(GpuBackend& backend, TimerOptions options);
  ~Timer();

  // `enqueue` queues one launch (or one chain of launches) on the backend's
  // stream without waiting, on copy `copy` of the inputs (0 .. copies - 1) for
  // the rotated regime, on the only one otherwise. `name` labels the benchmark.
  // `launches` is a hot replay's (replay_launches()); `graphs` keeps what is
  // captured for the next figure of the same thing, at the same copies and launches.
  using Enqueue = std::function<void(int copy)>;
  Measurement rotated(const std::string& name, int copies, int launches, const Enqueue& enqueue,
                      CapturedGraphs& graphs);
  Measurement l2_resident(const std::string& name, int launches, const Enqueue& enqueue, CapturedGraphs& graphs);
  Measurement cold(const std::string& name, const Enqueue& enqueue);
  // The regime's figure: rotated over `copies`, the others on copy 0.
  Measurement measure(TimingRegime regime, const std::string& name, int copies, int launches, const Enqueue& enqueue,
                      CapturedGraphs& graphs);

  TimingMethod method() const;
  const TimerOptions& options() const { return options_; }
  // The GPU's typical SM clock, the throttling check's reference; none where the driver does not report it.
  std::optional<int> default_sm_clock_mhz() const { return sm_clock_.default_mhz(); }

 private:
  Measurement repeat_until_stable(const std::string& name, const std::function<double()>& sample_us);
  // Each graph launches the copies it lists, in order; the graphs are replayed in turn, one sample each.
  // `captured` holds them already, or is empty and gets them now.
  Measurement graph_replays(const std::string& name, const std::vector<std::vector<int>>& graphs,
                            const Enqueue& enqueue, std::vector<std::unique_ptr<GpuGraph>>& captured);

  GpuBackend& backend_;
  TimerOptions options_;
  DeviceBuffer flush_buffer_;
  SmClock sm_clock_;
};

}  // namespace exactune
