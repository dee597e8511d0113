// The timers of a search strategy's screens: one per screening effort
// (strategies/search_strategy.hpp), each the sweep's timer at that effort's
// repetitions and iterations, made when a screen first asks for it.
#pragma once
#include <map>
#include <memory>
#include <utility>

#include "backends/gpu/gpu_backend.hpp"
#include "strategies/search_strategy.hpp"
#include "time/timer.hpp"

namespace exactune {

// One timer per screening effort: a screen is a single attempt, never measured
// again for its spread, which is the strategy's to weigh.
class ScreenTimers {
 public:
  ScreenTimers(GpuBackend& backend, const TimerOptions& sweep_timer) : backend_(backend), sweep_timer_(sweep_timer) {}

  // The timer of `effort`, made when first asked for.
  Timer& at(const ScreenEffort& effort);

 private:
  GpuBackend& backend_;
  TimerOptions sweep_timer_;
  std::map<std::pair<int, int>, std::unique_ptr<Timer>> timers_;  // by (repetitions, iterations)
};

}  // namespace exactune
