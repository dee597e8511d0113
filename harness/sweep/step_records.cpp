// The figures in a timing step's record, written and read back
// (step_records.hpp).
#include "sweep/step_records.hpp"

#include <algorithm>
#include <string>

#include "time/statistics.hpp"

namespace exactune {

nlohmann::json timing_json(const Timing& t) { return {t.median_us, t.min_us, t.max_us, t.samples}; }

Timing timing_from_json(const nlohmann::json& j) {
  return Timing{j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>(), j.at(3).get<int>()};
}

Screen screen_from_samples(const ShapeResult& s, const std::vector<TimingRegime>& regimes,
                           const nlohmann::json& samples) {
  const bool over_copy = regimes.size() > 1 && std::all_of(regimes.begin(), regimes.end(), [&](TimingRegime r) {
    return s.copy(r) && s.copy(r)->median_us > 0;
  });
  Screen screen;
  for (TimingRegime r : regimes) {
    const Timing t = timing_from_samples(samples.at(std::string(regime_name(r))).get<std::vector<double>>());
    screen.figure += over_copy ? t.median_us / s.copy(r)->median_us : t.median_us;
    screen.spread = std::max(screen.spread, t.spread());
    screen.timings.emplace_back(r, t);
  }
  return screen;
}

}  // namespace exactune
