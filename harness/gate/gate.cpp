#include "gate/gate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string_view>

#include <exactune/error.hpp>

#include "gate/gate_changes.hpp"

namespace exactune {
namespace {

std::string percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }

// A candidate proves exactness by passing every case it ran, and running some:
// a record that says exact without cases was never verified.
bool proven_exact(const VariantResult& v) { return v.exact && v.cases_total > 0 && v.cases_passed == v.cases_total; }

// ... and, to keep a baseline's exactness, by running at least the baseline's
// cases: a variant verified on 1 case proves nothing about the other 7.
bool proven_exact_as(const VariantResult& candidate, const VariantResult& baseline) {
  return proven_exact(candidate) && candidate.cases_total >= baseline.cases_total;
}

std::string exactness_words(const VariantResult& v) {
  const std::string kind = v.exact ? "exact" : v.failure_kind.empty() ? "not exact" : v.failure_kind;
  return fmt::format("{} {}/{}", kind, v.cases_passed, v.cases_total);
}

std::string timing_words(const Timing& t) {
  return fmt::format("{:.2f} us, spread {}", t.median_us, percent(t.spread()));
}

// Everything a variant record says, briefly: for new and removed variants.
std::string variant_words(const VariantResult& v) {
  std::string words = exactness_words(v);
  for (TimingRegime r : kTimingRegimes) {
    if (v.timing(r)) words += fmt::format(", {} {:.2f} us", regime_name(r), v.timing(r)->median_us);
  }
  return words;
}

// Builds a report finding by finding, baseline shapes in order, then new shapes.
class Comparison {
 public:
  Comparison(const SweepResults& baseline, const SweepResults& candidate, const GateOptions& options)
      : baseline_(baseline), candidate_(candidate), options_(options) {
    report_.family = baseline.family;
    report_.threshold = options.threshold;
  }

  GateReport run() && {
    // A NaN threshold compares false with every slowdown: each would pass as "under threshold".
    if (!std::isfinite(options_.threshold) || options_.threshold < 0 || options_.threshold > 1) {
      throw input_error(fmt::format("the threshold {} is no fraction from 0 to 1 (0.05 = 5%)", options_.threshold));
    }
    if (baseline_.family != candidate_.family) {
      throw input_error(
          fmt::format("the baseline is a sweep of family '{}' and the candidate of '{}': the gate "
                      "compares sweeps of one family",
                      baseline_.family, candidate_.family));
    }
    if (candidate_.shard) {
      throw input_error(fmt::format("the candidate is shard {}/{} of a sweep: merge its shards first (exactune merge)",
                                    candidate_.shard->index, candidate_.shard->count));
    }
    compare_provenance();
    for (const ShapeResult& base : baseline_.shapes) compare_shape(base, candidate_.find(base.shape.name));
    for (const ShapeResult& cand : candidate_.shapes) {
      if (baseline_.find(cand.shape.name) == nullptr) {
        report_.shapes.push_back(cand.shape.name);
        add({cand.shape.name, "", GateCheck::exactness, GateChange::new_shape, "missing",
             fmt::format("{} variants", cand.variants.size())});
      }
    }
    return std::move(report_);
  }

 private:
  // Fills in the verdict from the change, so the two never disagree.
  void add(GateFinding finding) {
    finding.verdict = change_traits(finding.change).verdict;
    report_.findings.push_back(std::move(finding));
  }

  // Speed is never compared across GPUs, nor exactness across reference
  // recipes: either is a failure, with the reason.
  void compare_provenance() {
    const auto gpu = [](const DeviceRecord& d) { return fmt::format("{} ({})", d.name, d.arch); };
    same_gpu_ = gpu(baseline_.device) == gpu(candidate_.device);
    if (!same_gpu_) {
      add({"", "", GateCheck::speed, GateChange::different_gpu, gpu(baseline_.device), gpu(candidate_.device),
           "timings are not comparable",
           fmt::format("the baseline ran on {} and the candidate on {}: speed is not "
                       "compared across GPUs",
                       gpu(baseline_.device), gpu(candidate_.device))});
    }
    if (baseline_.reference_recipe != candidate_.reference_recipe) {
      add({"", "", GateCheck::exactness, GateChange::different_reference, baseline_.reference_recipe,
           candidate_.reference_recipe, "exactness is against another reference",
           fmt::format("the reference recipe changed from {} to {}: the candidate proves exactness against another "
                       "reference",
                       baseline_.reference_recipe, candidate_.reference_recipe)});
    }
    if (baseline_.seed != candidate_.seed) {
      add({"", "", GateCheck::exactness, GateChange::different_inputs, fmt::format("seed {}", baseline_.seed),
           fmt::format("seed {}", candidate_.seed), "exactness is proven on other inputs",
           fmt::format("the input seed changed from {} to {}: the candidate proves exactness on other inputs than the "
                       "baseline's; sweep both with the same --seed",
                       baseline_.seed, candidate_.seed)});
    }
  }

  void compare_shape(const ShapeResult& base, const ShapeResult* cand) {
    const std::string& name = base.shape.name;
    if (cand == nullptr && candidate_.narrowed()) {
      report_.outside_selection += base.variants.size();
      return;
    }
    report_.shapes.push_back(name);
    if (cand == nullptr) {
      add({name, "", GateCheck::exactness, GateChange::removed_shape, fmt::format("{} variants", base.variants.size()),
           "missing", "",
           fmt::format("shape {} is missing from the candidate: none of its variants was verified or timed", name)});
      return;
    }
    if (base.shape.describe_parameters() != cand->shape.describe_parameters()) {
      add({name, "", GateCheck::exactness, GateChange::changed_shape, base.shape.describe_parameters(),
           cand->shape.describe_parameters(), "",
           fmt::format("shape {} is defined differently in the candidate ({} instead of {}): nothing of it compares",
                       name, cand->shape.describe_parameters(), base.shape.describe_parameters())});
      return;
    }
    const VariantResult* chosen = chosen_variant(base);
    compare_exactness(base, *cand, chosen);
    if (same_gpu_) {
      for (std::size_t i = 0; i < options_.regimes.size(); ++i) {
        compare_speed(base, *cand, chosen, options_.regimes[i], i == 0);
      }
    }
  }

  // The override from the options, else the baseline's fastest exact variant in the first gated regime.
  const VariantResult* chosen_variant(const ShapeResult& base) const {
    const auto it = options_.chosen.find(base.shape.name);
    if (it == options_.chosen.end()) {
      return options_.regimes.empty() ? nullptr : base.fastest_exact(options_.regimes.front());
    }
    const VariantResult* chosen = base.find(it->second);
    if (chosen == nullptr) {
      throw input_error(fmt::format("the chosen configuration of shape {} is {}, which the baseline does not have",
                                    base.shape.name, it->second));
    }
    return chosen;
  }

  void compare_exactness(const ShapeResult& base, const ShapeResult& cand, const VariantResult* chosen) {
    const std::string& shape = base.shape.name;
    for (const VariantResult& b : base.variants) {
      const VariantResult* c = cand.find(b.variant);
      const std::string base_words = exactness_words(b);
      if (c == nullptr) {
        // A removed chosen variant fails the speed check, which says so.
        if (&b != chosen && candidate_.narrowed()) {
          ++report_.outside_selection;
        } else if (&b != chosen) {
          add({shape, b.variant, GateCheck::exactness, GateChange::removed_variant, variant_words(b), "missing"});
        }
      } else if (b.exact && !proven_exact_as(*c, b)) {
        const std::string why = !proven_exact(*c) ? (c->failure.empty() ? "no failure recorded" : c->failure)
                                                  : "fewer cases than the baseline's";
        add({shape, b.variant, GateCheck::exactness, GateChange::lost_exactness, base_words, exactness_words(*c), "",
             fmt::format("{} on {}: was exact on {}/{} cases, now {}: {}", b.variant, shape, b.cases_passed,
                         b.cases_total, exactness_words(*c), why)});
      } else if (!b.exact && proven_exact(*c)) {
        add({shape, b.variant, GateCheck::exactness, GateChange::gained_exactness, base_words, exactness_words(*c)});
      }
    }
    for (const VariantResult& c : cand.variants) {
      if (base.find(c.variant) == nullptr) {
        add({shape, c.variant, GateCheck::exactness, GateChange::new_variant, "missing", variant_words(c)});
      }
    }
  }

  // A speed finding about one regime.
  void add_speed(const std::string& shape, const std::string& variant, TimingRegime regime, GateChange change,
                 std::string baseline, std::string candidate, std::string detail = "", std::string message = "") {
    GateFinding f{shape,
                  variant,
                  GateCheck::speed,
                  change,
                  std::move(baseline),
                  std::move(candidate),
                  std::move(detail),
                  std::move(message)};
    f.regime = regime;
    add(std::move(f));
  }

  // The chosen configuration's slowdown in one regime: relative to each run's
  // copy where both runs timed one (clock drift cancels), else as measured.
  // The noise is the baseline's alone: the larger of the figure's own spread
  // and the run-to-run noise the baseline's sweep recorded for the shape and
  // regime. A noisy candidate does not widen its tolerance: it is too noisy to
  // judge. `first`: the first regime gated, which says what concerns them all
  // (nothing to gate, the chosen configuration removed) once.
  void compare_speed(const ShapeResult& base, const ShapeResult& cand, const VariantResult* chosen, TimingRegime regime,
                     bool first) {
    const std::string& shape = base.shape.name;
    const std::string what = fmt::format(" ({})", regime_name(regime));
    if (chosen == nullptr) {
      if (first) add_speed(shape, "", regime, GateChange::speed_not_gated, "no timed exact variant", "");
      return;
    }
    if (!chosen->timing(regime)) {
      // The first regime's gap is said (e.g. a baseline from before the rotated regime); a later one's is silent.
      if (first) {
        add_speed(shape, chosen->variant, regime, GateChange::speed_not_gated, fmt::format("not timed{}", what), "");
      }
      return;
    }
    const Timing& before = *chosen->timing(regime);
    const std::string base_words = timing_words(before);
    const VariantResult* c = cand.find(chosen->variant);
    if (c == nullptr) {
      if (!first) return;  // said once, by the first regime's check
      add_speed(
          shape, chosen->variant, regime, GateChange::chosen_removed, base_words, "missing", "",
          fmt::format("{}, the chosen configuration of {}, is missing from the candidate", chosen->variant, shape));
      return;
    }
    if (!c->timing(regime)) {
      add_speed(shape, chosen->variant, regime, GateChange::chosen_not_timed, base_words, "not timed", "",
                fmt::format("{}, the chosen configuration of {}, was not timed{} in the candidate{}", chosen->variant,
                            shape, what, proven_exact(*c) ? "" : " (only exact variants are timed)"));
      return;
    }
    const Timing& after = *c->timing(regime);
    // A NaN or a negative figure compares false with every bound: it must fail, not pass as "within noise".
    // The spread (min and max) makes the noise, so a NaN there would pass anything too.
    const auto valid = [](const Timing& t) {
      return std::isfinite(t.median_us) && t.median_us > 0 && std::isfinite(t.min_us) && std::isfinite(t.max_us) &&
             t.min_us <= t.max_us;
    };
    const auto all_figures = [](const Timing& t) {
      return fmt::format("median {} us, min {} us, max {} us", t.median_us, t.min_us, t.max_us);
    };
    if (!valid(after) || !valid(before)) {
      add_speed(shape, chosen->variant, regime, GateChange::chosen_not_timed, base_words, timing_words(after), "",
                fmt::format("{}, the chosen configuration of {}, has no valid time{} (baseline {}; candidate {})",
                            chosen->variant, shape, what, all_figures(before), all_figures(after)));
      return;
    }
    const double limit = candidate_.timing.max_spread;
    if (limit > 0 && after.spread() > limit) {
      add_speed(shape, chosen->variant, regime, GateChange::too_noisy, base_words, timing_words(after), "",
                fmt::format("{}, the chosen configuration of {}{}, spreads {} in the candidate, beyond the sweep's "
                            "limit of {}: too noisy to judge",
                            chosen->variant, shape, what, percent(after.spread()), percent(limit)));
      return;
    }
    const std::optional<Timing>& base_copy = base.copy(regime);
    const std::optional<Timing>& cand_copy = cand.copy(regime);
    const bool relative = base_copy && cand_copy && base_copy->median_us > 0 && cand_copy->median_us > 0;
    const double ratio = relative ? (after.median_us / cand_copy->median_us) / (before.median_us / base_copy->median_us)
                                  : after.median_us / before.median_us;
    const double slowdown = ratio - 1;
    const RunToRunNoise* run_to_run = base.noise(regime);
    const double noise = std::max(before.spread(), run_to_run ? run_to_run->noise : 0.0);
    const GateChange change = slowdown > std::max(noise, options_.threshold) ? GateChange::slower
                              : slowdown > noise                             ? GateChange::slower_under_threshold
                              : slowdown < -noise                            ? GateChange::improved
                                                                             : GateChange::within_noise;
    const std::string figures = fmt::format(
        "{:+.1f}%{} (noise {}{})", slowdown * 100, relative ? " against the copy" : "", percent(noise),
        run_to_run ? fmt::format(", run to run {} over {} passes", percent(run_to_run->noise), run_to_run->passes)
                   : "");
    const std::string message =
        change != GateChange::slower
            ? ""
            : fmt::format(
                  "{}, the chosen configuration of {}, is {} slower{} ({:.2f} us -> {:.2f} us{}), beyond the "
                  "baseline's noise of {} and the threshold of {}",
                  chosen->variant, shape, percent(slowdown), what, before.median_us, after.median_us,
                  relative ? ", each against its run's copy" : "", percent(noise), percent(options_.threshold));
    add_speed(shape, chosen->variant, regime, change, base_words, timing_words(after), figures, message);
  }

  const SweepResults& baseline_;
  const SweepResults& candidate_;
  const GateOptions& options_;
  GateReport report_;
  bool same_gpu_ = true;
};

}  // namespace

bool GateReport::passed() const {
  return std::none_of(findings.begin(), findings.end(),
                      [](const GateFinding& f) { return f.verdict == GateVerdict::fail; });
}

std::size_t GateReport::count(GateChange change) const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(), [&](const GateFinding& f) { return f.change == change; }));
}

GateReport compare_sweeps(const SweepResults& baseline, const SweepResults& candidate, const GateOptions& options) {
  return Comparison(baseline, candidate, options).run();
}

}  // namespace exactune
