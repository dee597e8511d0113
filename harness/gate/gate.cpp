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
#include "time/comparison.hpp"

namespace exactune {
namespace {

// The relative change of a shape's copied bytes under which its speed still compares (compare_shape).
constexpr double kCopyBytesTolerance = 0.01;

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
class SweepComparison {
 public:
  SweepComparison(const SweepResults& baseline, const SweepResults& candidate, const GateOptions& options)
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
    correct_for_many_figures();
    return std::move(report_);
  }

 private:
  // Fills in the verdict from the change, so the two never disagree.
  void add(GateFinding finding) {
    finding.verdict = verdict_for(finding.change);
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
    // Figures are compared over their run's copy: a copy of other bytes is another yardstick. One within
    // kCopyBytesTolerance of the baseline's still compares (a DiT shape's few broadcast rows, now counted, move
    // its copy's time far less than the noise), so that such a change does not void every committed baseline.
    if (same_gpu_ && std::abs(static_cast<double>(cand->bytes_moved - base.bytes_moved)) >
                         kCopyBytesTolerance * static_cast<double>(base.bytes_moved)) {
      add({name, "", GateCheck::speed, GateChange::different_copy, fmt::format("copy of {} bytes", base.bytes_moved),
           fmt::format("copy of {} bytes", cand->bytes_moved), "timings are not comparable",
           fmt::format("the copy of shape {} moves {} bytes in the candidate and {} in the baseline (the family's "
                       "roofline changed): speed is not compared; sweep the baseline again",
                       name, cand->bytes_moved, base.bytes_moved)});
      return;
    }
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

  // The chosen configuration's change in one regime, relative to each run's
  // copy where both runs timed one (clock drift cancels), else as measured,
  // judged by the comparison (judge). The candidate sets no limit of its own:
  // a noisy candidate only widens the interval, towards "ambiguous".
  // `first`: the first regime gated, which says what concerns them all
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
    const std::optional<Timing>& base_copy = base.copy(regime);
    const std::optional<Timing>& cand_copy = cand.copy(regime);
    const bool relative = base_copy && cand_copy && base_copy->median_us > 0 && cand_copy->median_us > 0;
    const RunToRunNoise* run_to_run = base.noise(regime);
    const FigureComparison judged =
        judge(before, after, relative ? base_copy->median_us : 1.0, relative ? cand_copy->median_us : 1.0, run_to_run);
    const Comparison& figure = judged.comparison;
    const GateChange change = figure.verdict == Verdict::slower      ? GateChange::slower
                              : figure.verdict == Verdict::faster    ? GateChange::improved
                              : figure.verdict == Verdict::ambiguous ? GateChange::ambiguous
                              : figure.low > 1                       ? GateChange::slower_under_threshold
                                                                     : GateChange::within_noise;
    const std::string run_to_run_words =
        run_to_run ? fmt::format(", run to run {} over {} passes", percent(run_to_run->noise), run_to_run->passes) : "";
    const std::string pooled_words = after.runs > 1 ? fmt::format(" of {} runs", after.runs) : "";
    const std::string noise_words = (judged.from_samples ? fmt::format("{} vs {} samples{}", figure.baseline_samples,
                                                                       figure.candidate_samples, pooled_words)
                                                         : fmt::format("noise {}", percent(judged.summary_noise))) +
                                    run_to_run_words;
    const std::string figures =
        fmt::format("{}{} ({})", figure.describe(), relative ? " against the copy" : "", noise_words);
    const std::string change_words = fmt::format(
        "{}, the chosen configuration of {}, is {} slower{} ({:.2f} us -> {:.2f} us{}), interval {} against the "
        "threshold of {}",
        chosen->variant, shape, percent(figure.ratio - 1), what, before.median_us, after.median_us,
        relative ? ", each against its run's copy" : "", figure.describe(), percent(options_.threshold));
    add_speed(shape, chosen->variant, regime, change, base_words, timing_words(after), figures,
              change == GateChange::slower ? change_words
              : change == GateChange::ambiguous
                  ? fmt::format("{}, the chosen configuration of {}{}: {} against the "
                                "threshold of {} is too wide to tell: rerun",
                                chosen->variant, shape, what, figure.describe(), percent(options_.threshold))
                  : "");
    report_.findings.back().ratio = figure.ratio;
    if (std::isfinite(figure.low) && std::isfinite(figure.high) && figure.low > 0) {
      report_.findings.back().low = figure.low;
      report_.findings.back().high = figure.high;
    }
    if (judged.from_samples) tested_.push_back({report_.findings.size() - 1, figure.p_slower});
  }

  // What the comparison of one figure rests on: every sample divided by its
  // run's copy, compared with the baseline's run-to-run noise as the noise
  // between the two runs; or, where either sweep kept only a summary, the
  // ratio of the copy-relative medians with the interval the baseline's noise
  // (its figure's spread, its run-to-run noise) puts around it.
  struct FigureComparison {
    Comparison comparison;
    bool from_samples = false;
    double summary_noise = 0;
  };
  FigureComparison judge(const Timing& before, const Timing& after, double base_copy_us, double cand_copy_us,
                         const RunToRunNoise* run_to_run) const {
    FigureComparison judged;
    if (!before.samples_us.empty() && !after.samples_us.empty()) {
      const auto scaled = [](const std::vector<double>& samples, double by) {
        std::vector<double> out;
        out.reserve(samples.size());
        for (double s : samples) out.push_back(s / by);
        return out;
      };
      ComparisonOptions options;
      options.effect = options_.threshold;
      options.confidence = options_.confidence;
      options.between_runs = run_to_run ? between_run_sd(*run_to_run) : 0.0;
      options.candidate_runs = std::max(1, after.runs);  // gate mode's re-measures, pooled
      judged.comparison =
          compare_samples(scaled(before.samples_us, base_copy_us), scaled(after.samples_us, cand_copy_us), options);
      judged.from_samples = true;
      return judged;
    }
    const double ratio = (after.median_us / cand_copy_us) / (before.median_us / base_copy_us);
    judged.summary_noise = std::max(before.spread(), run_to_run ? run_to_run->noise : 0.0);
    Comparison& c = judged.comparison;
    c.ratio = ratio;
    c.low = ratio / (1 + judged.summary_noise);
    c.high = ratio * (1 + judged.summary_noise);
    c.baseline_samples = static_cast<std::size_t>(std::max(0, before.samples));
    c.candidate_samples = static_cast<std::size_t>(std::max(0, after.samples));
    c.verdict = verdict_of(c.low, c.high, options_.threshold);
    return judged;
  }

  // The run-to-run noise a sweep records is a range of pass medians; the
  // comparison takes a standard deviation: the range over the expected range
  // of that many normal draws (d2 of quality control's range charts).
  static double between_run_sd(const RunToRunNoise& noise) {
    static constexpr std::array<double, 11> kExpectedRange = {0,     0,     1.128, 1.693, 2.059, 2.326,
                                                              2.534, 2.704, 2.847, 2.970, 3.078};
    if (noise.passes < 2 || !(noise.noise > 0)) return 0;
    return noise.noise / kExpectedRange[std::min<std::size_t>(noise.passes, kExpectedRange.size() - 1)];
  }

  // Holm-Bonferroni over every figure compared from samples: a "slower" whose
  // p-value the family-wise correction does not reject is ambiguous, not a
  // failure. The family is the gate run's figures: 14 or so a family share one
  // false-alarm budget of 1 - confidence.
  void correct_for_many_figures() {
    std::vector<double> p_values;
    for (const TestedFigure& t : tested_) p_values.push_back(t.p_slower);
    const std::vector<bool> rejected = holm_rejections(p_values, 1 - options_.confidence);
    for (std::size_t i = 0; i < tested_.size(); ++i) {
      GateFinding& f = report_.findings[tested_[i].finding];
      if (f.change != GateChange::slower || rejected[i]) continue;
      f.change = GateChange::ambiguous;
      f.detail += fmt::format(", not significant over the {} figures compared (Holm)", tested_.size());
      f.message = fmt::format(
          "{}, the chosen configuration of {} ({}): {} is not significant over the {} figures "
          "compared (Holm): rerun",
          f.variant, f.shape, regime_name(*f.regime), f.detail, tested_.size());
      f.verdict = verdict_for(f.change);
    }
  }

  GateVerdict verdict_for(GateChange change) const {
    return change == GateChange::ambiguous && options_.strict ? GateVerdict::fail : change_traits(change).verdict;
  }

  struct TestedFigure {
    std::size_t finding;
    double p_slower;
  };
  std::vector<TestedFigure> tested_;

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
  return SweepComparison(baseline, candidate, options).run();
}

}  // namespace exactune
