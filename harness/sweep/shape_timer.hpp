// The timer of one shape of a sweep: the copy, the reference chain and the
// exact variants, in every regime, over the rotation's copies of the shape's
// timing case. ShapeTimers makes one when a timing step first needs it, so
// that a sweep makes none for a shape whose every step is in the journal, and
// keeps the shapes' timers while their working sets fit a budget.
#pragma once
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <exactune/backend.hpp>
#include <exactune/family.hpp>
#include <exactune/results.hpp>
#include <exactune/workload.hpp>

#include "backends/gpu/gpu_backend.hpp"
#include "time/timer.hpp"

namespace exactune {

// Times one shape in every regime: the copy, the reference chain and exact
// variants. Holds the rotation's copies of the timing case's workload (copy 0
// is the one the L2-resident and cold figures use), all made from the same
// seed, so every copy holds the same inputs; the hot replays' launches
// (replay_launches(), rotation.hpp); and the graphs captured for each thing
// timed, which its later figures replay (CapturedGraphs, timer.hpp).
class ShapeTimer {
 public:
  ShapeTimer(Timer& timer, std::vector<std::unique_ptr<Workload>> workloads, const std::string& shape, int launches)
      : timer_(timer), workloads_(std::move(workloads)), shape_(shape), launches_(launches) {}

  Measurement copy(TimingRegime regime);
  Measurement reference_chain(TimingRegime regime);
  Measurement variant(TimingRegime regime, const LoadedKernel& kernel, const Variant& variant);
  // The variant measured by `screener`, a timer of less effort than the sweep's, for a search strategy's screen.
  Measurement screen(Timer& screener, TimingRegime regime, const LoadedKernel& kernel, const Variant& variant);

 private:
  Measurement measure(TimingRegime regime, const std::string& what, const std::function<void(Workload&)>& launch);
  // `label` prefixes the benchmark's name only ("screen/"): a screen and a figure of `what` share its graphs.
  Measurement measure_with(Timer& timer, TimingRegime regime, const std::string& what,
                           const std::function<void(Workload&)>& launch, const std::string& label = "");

  Timer& timer_;
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::string shape_;
  int launches_;
  // By what is timed ("copy", "reference_chain", a variant's name): its screens and its figures share them.
  // Declared after the workloads, so destroyed before them: a graph holds the workloads' buffers.
  std::map<std::string, CapturedGraphs> graphs_;
};

// The shapes' timers, each over its rotation's copies of the timing case, all
// from one seed; made when a step first needs it (none when every step of the
// shape is in the journal), and kept while the rotations' working sets
// together fit `budget_bytes`, the least recently used dropped first. The
// re-timing and every noise pass come back to each shape, and making its
// copies again is the family's host-side input generation, once per copy; a
// kept timer also keeps the graphs its variants were screened with.
class ShapeTimers {
 public:
  ShapeTimers(const KernelFamily& family, GpuBackend& backend, const SupportKernels& support, Timer& timer,
              std::uint64_t seed, std::int64_t budget_bytes)
      : family_(family), backend_(backend), support_(support), timer_(timer), seed_(seed), budget_(budget_bytes) {}
  // The timer of `s` (its rotation planned), made now unless it is kept.
  ShapeTimer& of(const ShapeResult& s);

 private:
  struct Kept {
    std::string shape;
    std::int64_t bytes;  // the rotation's working set
    std::unique_ptr<ShapeTimer> timer;
  };
  std::unique_ptr<ShapeTimer> make(const ShapeResult& s) const;

  const KernelFamily& family_;
  GpuBackend& backend_;
  const SupportKernels& support_;
  Timer& timer_;
  std::uint64_t seed_;
  std::int64_t budget_;
  std::list<Kept> kept_;  // the most recently used first
};

}  // namespace exactune
