// A shape's timer over its rotation's copies, and the one current shape's
// (shape_timer.hpp).
#include "sweep/shape_timer.hpp"

#include <future>

#include "time/rotation.hpp"
#include "verify/verifier.hpp"

namespace exactune {

Measurement ShapeTimer::copy(TimingRegime regime) {
  return measure(regime, "copy", [](Workload& w) { w.launch_copy(); });
}

Measurement ShapeTimer::reference_chain(TimingRegime regime) {
  return measure(regime, "reference_chain", [](Workload& w) { w.launch_reference(); });
}

Measurement ShapeTimer::variant(TimingRegime regime, const LoadedKernel& kernel, const Variant& variant) {
  return measure(regime, variant.name, [&](Workload& w) { w.launch_variant(kernel, variant); });
}

Measurement ShapeTimer::screen(Timer& screener, TimingRegime regime, const LoadedKernel& kernel,
                               const Variant& variant) {
  return measure_with(
      screener, regime, variant.name, [&](Workload& w) { w.launch_variant(kernel, variant); }, "screen/");
}

Measurement ShapeTimer::measure(TimingRegime regime, const std::string& what,
                                const std::function<void(Workload&)>& launch) {
  return measure_with(timer_, regime, what, launch);
}

Measurement ShapeTimer::measure_with(Timer& timer, TimingRegime regime, const std::string& what,
                                     const std::function<void(Workload&)>& launch, const std::string& label) {
  return timer.measure(
      regime, shape_ + "/" + label + what, static_cast<int>(workloads_.size()), launches_,
      [&](int copy) { launch(*workloads_[static_cast<std::size_t>(copy)]); }, graphs_[what]);
}

ShapeTimer& ShapeTimers::of(const ShapeResult& s) {
  for (auto kept = kept_.begin(); kept != kept_.end(); ++kept) {
    if (kept->shape == s.shape.name) {
      kept_.splice(kept_.begin(), kept_, kept);
      return *kept_.front().timer;
    }
  }
  const std::int64_t bytes = s.rotation ? s.rotation->working_set_bytes : s.bytes_moved;
  std::int64_t held = bytes;
  for (const Kept& kept : kept_) held += kept.bytes;
  // The timers dropped go before the new one is made: their device memory is free for its copies.
  while (!kept_.empty() && held > budget_) {
    held -= kept_.back().bytes;
    kept_.pop_back();
  }
  kept_.push_front({s.shape.name, bytes, make(s)});
  return *kept_.front().timer;
}

std::unique_ptr<ShapeTimer> ShapeTimers::make(const ShapeResult& s) const {
  const InputCase timing_case = family_.timing_case(s.shape);
  const std::uint64_t seed = case_seed(seed_, s.shape.name, timing_case.name);
  // The copies are made at once, each on a thread of its own: making one
  // is mostly the family's host-side input generation.
  std::vector<std::future<std::unique_ptr<Workload>>> made;
  const int copies = s.rotation ? s.rotation->copies : 1;
  for (int i = 0; i < copies; ++i) {
    made.push_back(std::async(std::launch::async,
                              [&family = family_, &backend = backend_, &support = support_, &s, timing_case, seed] {
                                return family.make_workload(backend, support, s.shape, timing_case, seed);
                              }));
  }
  std::vector<std::unique_ptr<Workload>> workloads;
  for (auto& copy : made) workloads.push_back(copy.get());
  const int launches = replay_launches(s.bytes_moved, backend_.gpu().peak_memory_bytes_per_second(),
                                       timer_.options().launches_per_graph, timer_.options().min_replay_us);
  return std::make_unique<ShapeTimer>(timer_, std::move(workloads), s.shape.name, launches);
}

}  // namespace exactune
