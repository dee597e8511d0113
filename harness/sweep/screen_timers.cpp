// The timers of the screens, one per effort (screen_timers.hpp).
#include "sweep/screen_timers.hpp"

namespace exactune {

Timer& ScreenTimers::at(const ScreenEffort& effort) {
  std::unique_ptr<Timer>& screen_timer = timers_[{effort.repetitions, effort.iterations}];
  if (!screen_timer) {
    TimerOptions less = sweep_timer_;
    less.repetitions = effort.repetitions;
    less.iterations = effort.iterations;
    less.max_attempts = 1;
    // One replay warms a screen up: the graphs of its later rounds have run already, and a replay is
    // launches_per_graph launches, or enough to keep the GPU busy for min_replay_us.
    less.warmup_launches = 1;
    screen_timer = std::make_unique<Timer>(backend_, less);
  }
  return *screen_timer;
}

}  // namespace exactune
