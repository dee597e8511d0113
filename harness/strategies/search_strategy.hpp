// A search strategy decides, per shape, which of its exact variants get the
// sweep's full timing (every regime, every repetition): all of them
// (exhaustive), or those that short screening measurements leave in the running
// (successive_halving, the default). Verification is never the strategy's: every
// variant is verified before any is timed. A strategy measures only through the
// ScreenMeasure it is given, so that it runs without a GPU (tests give it
// synthetic figures) and so that a resumed sweep, whose screens come from its
// journal, makes the same decisions. New strategies plug in through
// strategy_registry.hpp.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <exactune/results.hpp>

namespace exactune {

// How much one screen measures, in the Timer's terms: `repetitions` x
// `iterations` samples, each one replay of the regime's graph (or one launch cold).
struct ScreenEffort {
  int repetitions = 3;
  int iterations = 1;
};

// What one screen of one variant measured. `figure` ranks (lower is faster):
// the median in µs when one regime is screened, the sum of each regime's median
// over its copy's when several are (as the chooser's policy `both` ranks).
// `spread` is the screen's own noise, relative: the largest robust spread
// (IQR / median) of its regimes' samples; single samples, not means, so the
// range would be an outlier's. `timings` are kept for the records of a cut variant.
struct Screen {
  double figure = 0;
  double spread = 0;
  std::vector<std::pair<TimingRegime, Timing>> timings;
};

// Screens `variant` of the shape at `effort` in screening round `round` (1 =
// the first); none when the measurement failed (the sweep records why).
using ScreenMeasure =
    std::function<std::optional<Screen>(const std::string& variant, int round, const ScreenEffort& effort)>;

// What the sweep tells a strategy beyond the variants.
struct SearchContext {
  // The sweep re-times its fastest few (SweepOptions::retime_top) and ranks the
  // runner-up: a strategy that cuts must leave at least this many.
  int keep_at_least = 4;
};

// A variant screened and cut: the round that cut it and its screen in that round.
struct CutVariant {
  std::string variant;
  int round = 0;
  Screen screen;
};

// The decision for one shape. Every variant given ends in exactly one list.
struct SearchDecision {
  std::vector<std::string> fully_timed;  // in the order given
  std::vector<CutVariant> cut;
  std::vector<std::string> screen_failed;  // a screen of it failed: not timed
  int rounds = 0;                          // screening rounds run
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  // How --strategy and sweep.yaml name it: lower case, [a-z0-9_].
  virtual std::string name() const = 0;
  // One line for --help and for the error that lists the strategies.
  virtual std::string description() const = 0;
  // Its settings in words, recorded in sweep.yaml beside its name.
  virtual std::string settings() const = 0;
  // Which of `variants` (the shape's exact variants) get the full timing.
  // Pure given the screens: the same figures give the same decision.
  virtual SearchDecision decide(const std::vector<std::string>& variants, const ScreenMeasure& screen,
                                const SearchContext& context) const = 0;
};

}  // namespace exactune
