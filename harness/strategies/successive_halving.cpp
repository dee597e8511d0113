// Successive halving with a noise-aware cut, the default strategy: screen every
// exact variant of a shape with a short measurement, keep the faster half, and
// screen the survivors again with twice the effort, until few remain; the
// survivors then get the full timing, exactly as exhaustive gives every variant.
//
// Why these numbers (builtin_strategies.hpp): a screen of 3 repetitions is the
// fewest that has a spread of its own; 1 sample (one replay, or one cold
// launch) per repetition in round 1, doubling, keeps the first round (over
// every variant) at a few percent of a full timing (3 regimes x 7 repetitions
// x 10 samples, up to 3 attempts), and 4 rounds end at 8 samples per
// repetition, near a full figure's 10. A screen's spread is the robust one
// (IQR / median) of its raw samples. A round never cuts
// a variant whose figure lies within max(3%, the larger screen spread of the
// two) of the best: the chooser calls two figures within their noise (2% at
// least) a tie and may prefer either (a configuration shared by every row count
// of a size is kept within noise of each bucket's best), so what the chooser
// could still pick survives. The search stops at max(4, retime_top + 1)
// survivors, so the re-timing and the runner-up always have their variants,
// and when a round cuts nothing: the rest are within noise of each other.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "strategies/builtin_strategies.hpp"

namespace exactune {
namespace {

class SuccessiveHalving final : public SearchStrategy {
 public:
  explicit SuccessiveHalving(const SuccessiveHalvingSettings& settings) : settings_(settings) {}

  std::string name() const override { return "successive_halving"; }
  std::string description() const override {
    return "the default: screen every exact variant briefly in the policy's regimes, halve the field each round "
           "(never cutting one within noise of the best) and time the survivors fully";
  }
  std::string settings() const override {
    const SuccessiveHalvingSettings& s = settings_;
    return fmt::format(
        "screens of {} repetitions, {} sample(s) each in round 1, doubled each round, at most {} rounds; a round "
        "keeps the faster half and every variant within max({}%, the screens' spread) of the best; stops at "
        "max({}, retime top + 1) survivors or a round that cuts nothing",
        s.screen_repetitions, s.first_iterations, s.max_rounds, s.noise_floor * 100, s.min_survivors);
  }

  SearchDecision decide(const std::vector<std::string>& variants, const ScreenMeasure& screen,
                        const SearchContext& context) const override {
    const std::size_t enough = static_cast<std::size_t>(std::max({1, settings_.min_survivors, context.keep_at_least}));
    SearchDecision decision;
    std::vector<std::string> alive = variants;
    for (int round = 1; round <= settings_.max_rounds && alive.size() > enough; ++round) {
      const ScreenEffort effort{settings_.screen_repetitions, settings_.first_iterations << (round - 1)};
      std::map<std::string, Screen> screens;
      for (const std::string& variant : alive) {
        if (std::optional<Screen> s = screen(variant, round, effort)) {
          screens.emplace(variant, std::move(*s));
        } else {
          decision.screen_failed.push_back(variant);
        }
      }
      decision.rounds = round;
      const std::vector<std::string> survivors = cut_round(alive, screens, enough, round, decision.cut);
      const bool cut_any = survivors.size() < screens.size();
      alive = survivors;
      if (!cut_any) break;
    }
    decision.fully_timed = alive;
    return decision;
  }

 private:
  // The variants of `alive` that stay, in their order: the faster half (never
  // fewer than `enough`) and every one within noise of the best. The others
  // go to `cut`, marked with `round`.
  std::vector<std::string> cut_round(const std::vector<std::string>& alive,
                                     const std::map<std::string, Screen>& screens, std::size_t enough, int round,
                                     std::vector<CutVariant>& cut) const {
    std::vector<const std::pair<const std::string, Screen>*> ranked;
    for (const auto& entry : screens) ranked.push_back(&entry);
    // Names break ties, so that the order never depends on the order given.
    std::sort(ranked.begin(), ranked.end(), [](const auto* a, const auto* b) {
      return std::tie(a->second.figure, a->first) < std::tie(b->second.figure, b->first);
    });
    std::map<std::string, bool> stays;
    const std::size_t half = std::max(enough, (ranked.size() + 1) / 2);
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      stays[ranked[i]->first] = i < half || within_noise(ranked[i]->second, ranked.front()->second);
    }
    std::vector<std::string> survivors;
    for (const std::string& variant : alive) {
      const auto found = stays.find(variant);
      if (found == stays.end()) continue;  // its screen failed
      if (found->second) {
        survivors.push_back(variant);
      } else {
        cut.push_back({variant, round, screens.at(variant)});
      }
    }
    return survivors;
  }

  // Whether `candidate` may still be as fast as `best`: a figure not positive
  // (nothing measured) can be judged by nobody, so it stays.
  bool within_noise(const Screen& candidate, const Screen& best) const {
    if (!(best.figure > 0) || !(candidate.figure > 0)) return true;
    const double margin = std::max({settings_.noise_floor, candidate.spread, best.spread});
    return candidate.figure <= best.figure * (1 + margin);
  }

  SuccessiveHalvingSettings settings_;
};

}  // namespace

std::unique_ptr<SearchStrategy> make_successive_halving_strategy(const SuccessiveHalvingSettings& settings) {
  return std::make_unique<SuccessiveHalving>(settings);
}

}  // namespace exactune
