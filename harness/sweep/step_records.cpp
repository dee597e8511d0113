// The figures in a timing step's record, written and read back
// (step_records.hpp).
#include "sweep/step_records.hpp"

#include <algorithm>
#include <string>

#include "time/comparison.hpp"
#include "time/statistics.hpp"

namespace exactune {

Screen screen_from_samples(const ShapeResult& s, const std::vector<TimingRegime>& regimes, const StepResult& screened) {
  const bool over_copy = regimes.size() > 1 && std::all_of(regimes.begin(), regimes.end(), [&](TimingRegime r) {
                           return s.copy(r) && s.copy(r)->median_us > 0;
                         });
  Screen screen;
  for (TimingRegime r : regimes) {
    const auto samples = screened.entry({"samples", regime_name(r)}).get<std::vector<double>>();
    Timing t = timing_from_samples(samples);
    t.samples_us = samples;  // what the strategy's cut compares (time/comparison.hpp)
    screen.figure += over_copy ? t.median_us / s.copy(r)->median_us : t.median_us;
    screen.spread = std::max(screen.spread, robust_spread(t.samples_us));
    screen.timings.emplace_back(r, t);
  }
  return screen;
}

}  // namespace exactune
