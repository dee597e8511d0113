// The timer of one shape of a sweep: the copy, the reference chain and the
// exact variants, in every regime, over the rotation's copies of the shape's
// timing case. CurrentShapeTimer keeps one shape's at a time, made when a
// timing step first needs it, so that a sweep holds one shape's workloads only
// and makes none for a shape whose every step is in the journal.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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

// The timer of one shape at a time, over its rotation's copies of the timing
// case, all from one seed; made when a step first needs it (none when every
// step of the shape is in the journal).
class CurrentShapeTimer {
 public:
  CurrentShapeTimer(const KernelFamily& family, GpuBackend& backend, const SupportKernels& support, Timer& timer,
                    std::uint64_t seed)
      : family_(family), backend_(backend), support_(support), timer_(timer), seed_(seed) {}

  // The timer of `s` (its rotation planned), made now unless it is the current one.
  ShapeTimer& of(const ShapeResult& s);

 private:
  const KernelFamily& family_;
  GpuBackend& backend_;
  const SupportKernels& support_;
  Timer& timer_;
  std::uint64_t seed_;
  std::optional<ShapeTimer> current_;
  std::string current_shape_;
};

}  // namespace exactune
