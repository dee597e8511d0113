// The timer of one shape of a sweep: the copy, the reference chain and the
// exact variants, in every regime, over the rotation's copies of the shape's
// timing case. CurrentShapeTimer keeps one shape's at a time, made when a
// timing step first needs it, so that a sweep holds one shape's workloads only
// and makes none for a shape whose every step is in the journal.
#pragma once
#include <cstdint>
#include <functional>
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
// seed, so every copy holds the same inputs.
class ShapeTimer {
 public:
  ShapeTimer(Timer& timer, std::vector<std::unique_ptr<Workload>> workloads, const std::string& shape)
      : timer_(timer), workloads_(std::move(workloads)), shape_(shape) {}

  Measurement copy(TimingRegime regime);
  Measurement reference_chain(TimingRegime regime);
  Measurement variant(TimingRegime regime, const LoadedKernel& kernel, const Variant& variant);
  // The variant measured by `screener`, a timer of less effort than the sweep's, for a search strategy's screen.
  Measurement screen(Timer& screener, TimingRegime regime, const LoadedKernel& kernel, const Variant& variant);

 private:
  Measurement measure(TimingRegime regime, const std::string& what, const std::function<void(Workload&)>& launch);
  Measurement measure_with(Timer& timer, TimingRegime regime, const std::string& what,
                           const std::function<void(Workload&)>& launch);

  Timer& timer_;
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::string shape_;
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
