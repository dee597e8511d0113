// Successive halving with a noise-aware cut, the default strategy: screen every
// exact variant of a shape with a short measurement (in a shuffled order each
// round: screening_order), keep the faster half, and
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
//
// Where both screens kept their samples in every regime screened, "within
// noise" is the one comparison of two timings (time/comparison.hpp) at the
// same 3% effect: a variant is cut only when the comparison calls it slower
// than the best in some regime and slower or the same in every other (a
// screen it calls faster or ambiguous anywhere may still be as fast). Screens
// summarised without samples keep the range rule above.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>

#include "strategies/builtin_strategies.hpp"
#include "time/comparison.hpp"

namespace exactune {
namespace {

// The order a round screens in: shuffled, so that a clock drifting over a
// round does not favour the names that sort first (a whole axis value, as
// names spell axes in order). Deterministic, from the round and the variants'
// names, and the same on every standard library (std::shuffle's algorithm is
// not): Fisher-Yates over mt19937_64. The decision does not depend on it.
std::vector<std::string> screening_order(std::vector<std::string> variants, int round) {
  std::sort(variants.begin(), variants.end());  // the order given changes nothing
  std::uint64_t seed = 1469598103934665603ull ^ static_cast<std::uint64_t>(round);
  for (const std::string& name : variants) {
    for (const char c : name) seed = (seed ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    seed = (seed ^ 0xff) * 1099511628211ull;
  }
  std::mt19937_64 engine(seed);
  for (std::size_t i = variants.size(); i > 1; --i) std::swap(variants[i - 1], variants[engine() % i]);
  return variants;
}

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
        "keeps the faster half and every variant within noise of the best (not slower by the samples' comparison "
        "at {}%, or without samples within max(that, the screens' spread)); stops at "
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
      for (const std::string& variant : screening_order(alive, round)) {
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
    if (sampled_alike(candidate, best)) return !compared_slower(candidate, best);
    const double margin = std::max({settings_.noise_floor, candidate.spread, best.spread});
    return candidate.figure <= best.figure * (1 + margin);
  }

  // Whether both screens hold samples, of the same regimes in the same order.
  static bool sampled_alike(const Screen& a, const Screen& b) {
    if (a.timings.empty() || a.timings.size() != b.timings.size()) return false;
    for (std::size_t i = 0; i < a.timings.size(); ++i) {
      if (a.timings[i].first != b.timings[i].first) return false;
      for (const Screen* s : {&a, &b}) {
        const std::vector<double>& samples = s->timings[i].second.samples_us;
        if (samples.empty() || !std::all_of(samples.begin(), samples.end(), [](double x) { return x > 0; }))
          return false;
      }
    }
    return true;
  }

  // Whether the comparison calls `candidate` slower than `best`: slower in
  // some regime, and slower or the same in each.
  bool compared_slower(const Screen& candidate, const Screen& best) const {
    ComparisonOptions options;
    options.effect = settings_.noise_floor;
    bool slower_somewhere = false;
    for (std::size_t i = 0; i < candidate.timings.size(); ++i) {
      const Verdict verdict =
          compare_samples(best.timings[i].second.samples_us, candidate.timings[i].second.samples_us, options).verdict;
      if (verdict != Verdict::slower && verdict != Verdict::same) return false;
      slower_somewhere = slower_somewhere || verdict == Verdict::slower;
    }
    return slower_somewhere;
  }

  SuccessiveHalvingSettings settings_;
};

}  // namespace

std::unique_ptr<SearchStrategy> make_successive_halving_strategy(const SuccessiveHalvingSettings& settings) {
  return std::make_unique<SuccessiveHalving>(settings);
}

}  // namespace exactune
