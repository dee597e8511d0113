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
    screen_timer = std::make_unique<Timer>(backend_, less);
  }
  return *screen_timer;
}

}  // namespace exactune
