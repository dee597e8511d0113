// The regression gate: compares a candidate sweep with a committed baseline of
// the same kernel family. It fails when a variant that was bit-exact is not
// proven exact again on at least the baseline's cases; when a shape's chosen
// configuration got slower, in any regime the chooser's policy ranks by or
// cold; when a chosen configuration or a whole shape disappeared, or a shape
// changed its definition under the same name; and when the sweeps ran on
// different GPUs (speed is then not compared), against different reference
// recipes or on inputs of another seed (exactness is then proven on other
// inputs).
// Speed is judged by the one comparison of timings (time/comparison.hpp): each
// run's samples divided by its own copy (clock drift cancels), the interval on
// their ratio widened by the baseline's recorded run-to-run noise (the two
// sweeps are separate runs: by sqrt(2) of it, by sqrt(1 + 1/k) where the
// candidate pools k re-measured runs), and a verdict against the threshold as the effect
// size: slower fails; same and faster pass; ambiguous (too wide to tell) is a
// warning, "ambiguous: rerun", which fails only under `strict`. Figures with
// samples form one family of tests: a "slower" stands only where Holm-Bonferroni
// rejects at 1 - confidence over all of them, so 14 figures a family share one
// false-alarm budget. A sweep that kept only summaries (median, min, max) is
// judged on the interval its medians and the baseline's noise give. The
// candidate never sets its own limits: its noise only widens its interval.
// Everything else that changed is reported as a note. A narrowed candidate
// (SweepResults::narrowed: gate mode's --only, a partial merge) is compared on
// what it selected: the baseline's shapes and variants outside its selection
// are counted, neither removed nor lost; its chosen configurations must be
// there. A shard that was not merged is refused.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <exactune/results.hpp>

namespace exactune {

struct GateOptions {
  // A slowdown of the chosen configuration up to this fraction passes even
  // when it is beyond noise (0.05 = 5%).
  double threshold = 0.05;
  // The configuration whose speed is gated, per shape name (from the heuristics
  // a serving framework uses). A shape not listed gates the baseline's fastest
  // exact variant in the first regime (ShapeResult::fastest_exact).
  std::map<std::string, std::string> chosen;
  // The regimes gated: the chooser policy's (policy_regimes), then cold, which
  // is always gated. The first ranks a shape not in `chosen`.
  std::vector<TimingRegime> regimes = {TimingRegime::rotated, TimingRegime::cold};
  // Of the comparison's interval, and 1 - the family-wise false-alarm rate.
  double confidence = 0.95;
  // An ambiguous figure fails the gate (else it is a warning: rerun).
  bool strict = false;
};

// What one finding is about: the test cases the gate has per shape (speed per regime).
enum class GateCheck { exactness, speed };

enum class GateChange {
  lost_exactness,          // exact in the baseline, not proven exact in the candidate on as many cases: fail
  gained_exactness,        // not exact in the baseline, exact now: note
  slower,                  // the comparison's verdict "slower" (a real slowdown that may reach the threshold): fail
  ambiguous,               // the interval is too wide to tell: "ambiguous: rerun", a warning (fail under strict)
  slower_under_threshold,  // "same", but slower beyond noise: a real slowdown below the threshold: pass
  within_noise,            // "same": no change the threshold cares about: pass
  improved,                // "faster": pass
  chosen_not_timed,        // the chosen configuration has no hot timing in the candidate: fail
  chosen_removed,          // the chosen configuration is missing from the candidate: fail
  speed_not_gated,         // the baseline has no timed exact variant for the shape: note
  new_variant,             // only in the candidate: note
  removed_variant,         // only in the baseline, not the chosen one: note
  new_shape,               // note
  removed_shape,           // fail
  changed_shape,           // the same name, other parameters: nothing compares, fail
  different_gpu,           // the sweeps ran on different GPUs: speed is not compared, fail
  different_reference,     // the reference recipe changed: exactness is against another reference, fail
  different_inputs,        // another input seed: exactness is proven on other inputs than the baseline's, fail
  different_copy,          // the shape's copy moves other bytes than the baseline's (the family's roofline changed):
                           // its speed is not compared, fail
};

enum class GateVerdict { pass, note, warning, fail };

struct GateFinding {
  std::string shape;    // empty for findings about the whole sweep
  std::string variant;  // empty for findings about a whole shape
  GateCheck check = GateCheck::exactness;
  GateChange change = GateChange::within_noise;
  std::string baseline;                     // what the baseline had, briefly ("10.10 us, spread 1.0%", "exact 8/8")
  std::string candidate;                    // the same for the candidate
  std::string detail{};                     // the change's figures, briefly ("+12.0% (noise 2.0%)"); may be empty
  std::string message{};                    // why it failed, in a sentence (empty unless it did): the JUnit failure
  GateVerdict verdict = GateVerdict::pass;  // follows from `change`
  std::optional<TimingRegime> regime{};     // the regime of a speed finding about a shape
  std::optional<double> ratio{};            // a compared speed finding's estimate of candidate / baseline
  std::optional<double> low{}, high{};      // and its interval, where finite
};

struct GateReport {
  std::string family;
  double threshold = 0;
  std::vector<std::string> shapes;  // every shape of either sweep, baseline order first
  std::vector<GateFinding> findings;
  // (shape, variant) pairs of the baseline a narrowed candidate did not select: not compared.
  std::size_t outside_selection = 0;

  bool passed() const;
  std::size_t count(GateChange change) const;
};

// Throws exactune::input_error when the families differ, when the candidate
// is one shard of a sweep, when the threshold is
// not a finite fraction from 0 to 1, or when options.chosen names a variant
// the baseline does not have.
GateReport compare_sweeps(const SweepResults& baseline, const SweepResults& candidate, const GateOptions& options);

}  // namespace exactune
