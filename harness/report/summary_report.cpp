#include "report/summary_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <tuple>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>

#include "choose/chooser.hpp"
#include "report/heatmap_svg.hpp"
#include "report/table_buys.hpp"
#include "store/chooser_policy.hpp"
#include "store/framework_times.hpp"
#include "store/heuristics.hpp"
#include "store/targets.hpp"
#include "util/markdown_text.hpp"
#include "util/xml_escape.hpp"

namespace exactune {
namespace {

// The best exact variant as the chooser's policy ranks.
const VariantResult* best_by_policy(const ShapeResult& shape, ChooserPolicy policy) {
  const std::vector<const VariantResult*> ranked = ranked_by_policy(shape, policy);
  return ranked.empty() ? nullptr : ranked.front();
}

int exact_count(const ShapeResult& shape) {
  return static_cast<int>(
      std::count_if(shape.variants.begin(), shape.variants.end(), [](const VariantResult& v) { return v.exact; }));
}

// Exact variants with a full timing (in any regime): those the search strategy kept.
int fully_timed_count(const ShapeResult& shape) {
  return static_cast<int>(std::count_if(shape.variants.begin(), shape.variants.end(), [](const VariantResult& v) {
    return v.exact && std::any_of(kTimingRegimes.begin(), kTimingRegimes.end(),
                                  [&](TimingRegime r) { return v.timing(r).has_value(); });
  }));
}

// ---------------------------------------------------------------- summary.md

std::string microseconds(const std::optional<Timing>& t) {
  return t ? fmt::format("{:.2f}", t->median_us) : kMarkdownMissing;
}

// A ratio of two timings, or a dash when either is missing.
std::string ratio(const std::optional<Timing>& numerator, const std::optional<Timing>& denominator,
                  std::string_view unit = "") {
  if (!numerator || !denominator || denominator->median_us <= 0) return kMarkdownMissing;
  return fmt::format("{:.2f}{}", numerator->median_us / denominator->median_us, unit);
}

// "13.0" from the driver's 13000.
std::string driver_text(int version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

std::string chosen_for(const Heuristics& h, const Shape& shape) {
  if (const Choice* c = h.device.choice_for(shape.size, shape.rows())) return markdown_code(c->chosen.variant);
  return fmt::format("{} (default)", markdown_code(h.device.default_configuration.variant));
}

// The parameters the table's column shows: those whose value differs between
// the sweep's shapes, and the size parameter always; the others are the same
// for every shape and said once above the table. In the family's order.
struct ParameterColumn {
  std::vector<std::string> shown;
  std::vector<std::string> common;  // "name=value"
};

// A shape's value of parameter `name` as its shape file spells it; a dash when it has none.
std::string parameter_text(const Shape& shape, const std::string& name) {
  for (const ShapeParameter& p : shape.parameters) {
    if (p.name == name) return p.text();
  }
  return kMarkdownMissing;
}

ParameterColumn parameter_column(const SweepResults& r, const KernelFamily& family) {
  ParameterColumn column;
  for (const ParameterSpec& spec : family.shape_parameters()) {
    const bool varies = std::any_of(r.shapes.begin(), r.shapes.end(), [&](const ShapeResult& s) {
      return parameter_text(s.shape, spec.name) != parameter_text(r.shapes.front().shape, spec.name);
    });
    if (varies || spec.name == family.size_parameter() || r.shapes.empty()) {
      column.shown.push_back(spec.name);
    } else {
      column.common.push_back(fmt::format("{}={}", spec.name, parameter_text(r.shapes.front().shape, spec.name)));
    }
  }
  return column;
}

// "a / b / c": one figure in each regime, in kTimingRegimes' order.
std::string per_regime(const std::function<std::optional<Timing>(TimingRegime)>& figure) {
  std::vector<std::string> cells;
  for (TimingRegime r : kTimingRegimes) cells.push_back(microseconds(figure(r)));
  return fmt::format("{}", fmt::join(cells, " / "));
}

std::string mebibytes(std::int64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }

// The rotation's copies and working set, flagged where a limit kept it under twice the L2.
std::string rotation_text(const ShapeResult& s, const DeviceRecord& d) {
  if (!s.rotation) return kMarkdownMissing;
  const bool short_of_l2 = d.l2_bytes > 0 && s.rotation->working_set_bytes < 2 * d.l2_bytes;
  return fmt::format("{} ({}{})", s.rotation->copies, mebibytes(s.rotation->working_set_bytes),
                     short_of_l2 ? ", under 2× L2" : "");
}

// The run-to-run noise per regime, as the noise passes measured it.
std::string noise_text(const ShapeResult& s) {
  if (s.run_to_run_noise.empty()) return kMarkdownMissing;
  std::vector<std::string> cells;
  int passes = 0;
  for (TimingRegime r : kTimingRegimes) {
    const RunToRunNoise* n = s.noise(r);
    cells.push_back(n ? fmt::format("{:.1f}%", n->noise * 100) : kMarkdownMissing);
    if (n) passes = std::max(passes, n->passes);
  }
  return fmt::format("{} ({} passes)", fmt::join(cells, " / "), passes);
}

std::string shape_row(const ShapeResult& s, const Heuristics& h, const ParameterColumn& column,
                      const FrameworkTimes& framework, const DeviceRecord& device) {
  const VariantResult* best = best_by_policy(s, h.policy);
  const Shape& shape = s.shape;
  std::optional<Timing> torch_eager;
  if (const std::optional<double> us = framework.eager(shape.name)) torch_eager = Timing{*us, *us, *us, 1};
  std::vector<std::string> values;
  for (const std::string& name : column.shown) values.push_back(parameter_text(shape, name));
  std::string row = fmt::format(
      "| {} | ({}) | {} | {} | {} | {} | {} |", markdown_text(shape.name),
      markdown_text(fmt::format("{}", fmt::join(values, ", "))), shape.rows(),
      torch_eager ? microseconds(torch_eager) : "n/a", per_regime([&](TimingRegime r) { return s.reference_chain(r); }),
      best ? markdown_code(best->variant) : kMarkdownMissing, per_regime([&](TimingRegime r) { return s.copy(r); }));
  for (TimingRegime r : kTimingRegimes) {
    const std::optional<Timing> figure = best ? best->timing(r) : std::nullopt;
    row += fmt::format(" {} | {} |", microseconds(figure), ratio(figure, s.copy(r)));
  }
  return row + fmt::format(" {} | {} | {} | {}/{} |\n", rotation_text(s, device), noise_text(s), chosen_for(h, shape),
                           exact_count(s), s.variants.size());
}

// Each target against the sweep: computed verdicts, with the reason recorded
// for a miss (or a note that none was).
std::string targets_section(const SweepResults& r, const Targets& targets, TimingRegime regime) {
  std::string out = fmt::format(
      "## Targets\n\nFrom targets.yaml: the best exact variant's {0} median over the copy's, at most (the "
      "policy's figure). Cold beside it.\n\n| shape | target | {0} best/copy | cold best/copy | met | measured "
      "reason where missed |\n|---|---:|---:|---:|---|---|\n",
      regime_label(regime));
  for (const ShapeTarget& t : targets.shapes) {
    const auto s = std::find_if(r.shapes.begin(), r.shapes.end(),
                                [&](const ShapeResult& candidate) { return candidate.shape.name == t.shape; });
    const VariantResult* best = s == r.shapes.end() ? nullptr : s->fastest_exact(regime);
    std::string hot = kMarkdownMissing, cold = kMarkdownMissing, met = "not swept", reason;
    if (s != r.shapes.end()) met = "not timed";
    if (best && s->copy(regime) && s->copy(regime)->median_us > 0) {
      const double hot_ratio = best->timing(regime)->median_us / s->copy(regime)->median_us;
      hot = fmt::format("{:.3f}", hot_ratio);
      if (best->cold && s->copy_cold && s->copy_cold->median_us > 0) {
        cold = fmt::format("{:.3f}", best->cold->median_us / s->copy_cold->median_us);
      }
      met = hot_ratio <= t.best_over_copy ? "yes" : "no";
      if (met == "no") reason = t.reason_if_missed.empty() ? "none recorded" : t.reason_if_missed;
    }
    fmt::format_to(std::back_inserter(out), "| {} | ≤ {:.2f} | {} | {} | {} | {} |\n", markdown_text(t.shape),
                   t.best_over_copy, hot, cold, met, markdown_text(reason));
  }
  return out + "\n";
}

// Which search strategy decided what was timed fully, and how many per shape;
// nothing for a sweep from before strategies (every exact variant was timed).
std::string search_paragraph(const SweepResults& r) {
  if (r.strategy.empty()) return "";
  std::vector<std::string> counts;
  for (const ShapeResult& s : r.shapes) {
    counts.push_back(fmt::format("{} {} of {}", markdown_text(s.shape.name), fully_timed_count(s), exact_count(s)));
  }
  return fmt::format(
      "Search strategy `{}` ({}). Exact variants timed fully, per shape: {}. Every variant was verified; an exact "
      "variant not timed fully was screened out, and sweep.yaml records its screen (`screened_out`: the round "
      "that cut it and its figures).\n\n",
      markdown_text(r.strategy), markdown_text(r.strategy_settings), fmt::join(counts, ", "));
}

// The SM clock the timer read after each figure, per shape, and the figures read below
// kThrottledClockFraction of the default (nvbench's throttling): "" when no clock was read.
std::string sm_clock_paragraph(const SweepResults& r) {
  std::vector<std::string> shapes, throttled;
  int default_mhz = 0;
  for (const ShapeResult& s : r.shapes) {
    if (!s.sm_clock) continue;
    const SmClockRecord& c = *s.sm_clock;
    default_mhz = std::max(default_mhz, c.default_mhz);
    shapes.push_back(
        fmt::format("{} {}-{} MHz ({} figures)", markdown_text(s.shape.name), c.min_mhz, c.max_mhz, c.figures));
    for (const std::string& figure : c.throttled) {
      throttled.push_back(fmt::format("{} {}", markdown_text(s.shape.name), markdown_text(figure)));
    }
  }
  if (shapes.empty()) return "";
  const std::string reference =
      default_mhz > 0 ? fmt::format("default {} MHz", default_mhz) : std::string("default not reported: none flagged");
  return fmt::format(
      "SM clock, read right after each figure's samples ({}): {}. Figures read below {:.0f}% of the default "
      "(throttled, as nvbench calls it): {}.\n\n",
      reference, fmt::join(shapes, "; "), 100 * kThrottledClockFraction,
      throttled.empty() ? std::string("none") : fmt::format("{}", fmt::join(throttled, ", ")));
}

std::string not_exact_section(const SweepResults& r) {
  std::string out;
  for (const ShapeResult& s : r.shapes) {
    for (const VariantResult& v : s.variants) {
      if (v.exact) continue;
      fmt::format_to(std::back_inserter(out), "- {} {}: {}: {}\n", markdown_text(s.shape.name),
                     markdown_code(v.variant), v.failure_kind.empty() ? "not exact" : markdown_text(v.failure_kind),
                     markdown_text(v.failure));
    }
  }
  return out.empty() ? "Every variant of every shape is bit-exact.\n" : out;
}

// Per shape and axis, the fastest exact variant with each value of that axis,
// among the variants where the axis applies (KernelFamily::axis_applies): what
// each lever (every lever is an axis) is worth on this shape, measured.
std::string axis_effects_section(const SweepResults& r, const KernelFamily& family, TimingRegime regime) {
  std::vector<std::string> axes;
  for (const ShapeResult& s : r.shapes) {
    for (const VariantResult& v : s.variants) {
      for (const Param& p : v.params) {
        if (std::find(axes.begin(), axes.end(), p.axis) == axes.end()) axes.push_back(p.axis);
      }
    }
  }
  std::string out = "| shape |";
  std::string rule = "|---|";
  for (const std::string& a : axes) {
    out += " " + a + " |";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (const ShapeResult& s : r.shapes) {
    out += "| " + markdown_text(s.shape.name) + " |";
    for (const std::string& axis : axes) {
      std::vector<std::pair<std::string, double>> best;  // value -> fastest median in the regime, in axis order
      for (const VariantResult& v : s.variants) {
        const std::optional<Timing>& t = v.timing(regime);
        // A variant whose part of the space holds the axis fixed says nothing of what its values are worth.
        const std::string* value = find_param(v.params, axis);
        if (!t || !value || !family.axis_applies(axis, v.params)) continue;
        auto it = std::find_if(best.begin(), best.end(), [&](const auto& b) { return b.first == *value; });
        if (it == best.end())
          best.emplace_back(*value, t->median_us);
        else
          it->second = std::min(it->second, t->median_us);
      }
      std::string cell;
      for (const auto& [value, us] : best) cell += fmt::format("{}{}: {:.2f}", cell.empty() ? "" : ", ", value, us);
      out += " " + (cell.empty() ? std::string(kMarkdownMissing) : cell) + " |";
    }
    out += "\n";
  }
  return out;
}

}  // namespace

// Where a shape's best exact variant is one the tables never choose
// (KernelFamily::not_chosen_because), a sentence per reason that says so; ""
// when none is.
std::string not_chosen_sentence(const SweepResults& r, const Heuristics& h, const KernelFamily& family) {
  std::map<std::string, std::vector<std::string>> names_by_reason;
  for (const ShapeResult& s : r.shapes) {
    const VariantResult* best = best_by_policy(s, h.policy);
    if (best == nullptr) continue;
    const std::string because = family.not_chosen_because(best->params);
    if (!because.empty()) names_by_reason[because].push_back(fmt::format("`{}` ({})", best->variant, s.shape.name));
  }
  std::string text;
  for (const auto& [why, names] : names_by_reason) {
    fmt::format_to(std::back_inserter(text),
                   " Best exact but never chosen: {}. The tables choose among the others, as {}.",
                   fmt::join(names, ", "), markdown_text(why));
  }
  return text;
}

std::string summary_markdown(const SweepResults& r, const Heuristics& h, const Targets& targets,
                             const FrameworkTimes& framework) {
  const KernelFamily& family = FamilyRegistry::find(r.family);
  const std::string size = family.size_parameter();
  const ParameterColumn column = parameter_column(r, family);
  const DeviceRecord& d = r.device;
  std::string out =
      fmt::format("# exactune sweep: {} ({}, {} SMs), CUDA driver {}, NVRTC {}\n\n", markdown_text(d.name),
                  markdown_text(d.arch), d.sm_count, driver_text(d.driver_version), markdown_text(d.nvrtc_version));
  fmt::format_to(std::back_inserter(out), "Family `{}`, bit-exact with {}. Swept {} in {:.0f} s.\n\n", r.family,
                 r.reference_recipe.empty() ? "the eager chain" : markdown_text(r.reference_recipe),
                 markdown_text(r.created), r.wall_s);
  const TimingRegime figure = policy_figure(h.policy);
  if (!r.timing.l2_resident.empty() || !r.timing.rotated.empty()) {
    const auto method = [](const std::string& text) {
      return text.empty() ? std::string("not measured in this sweep (timed before the regime existed)")
                          : markdown_text(text);
    };
    fmt::format_to(std::back_inserter(out),
                   "Times are medians in µs per launch, in three regimes. Hot (rotated): {}; what serving sees, as "
                   "its activations are not L2-resident. Hot (L2-resident): {}; a shape smaller than the L2 is "
                   "timed from it. Cold: {}. {} repetitions each. Copy: the same bytes copied in the same regime, "
                   "the roofline. Reference chain: exactune's replica of the framework's kernels, launched as the "
                   "framework launches them: what every variant is verified against, timed in this sweep; it is not "
                   "the framework itself. Torch eager: the framework's own chain on the same GPU under CUDA-graph "
                   "replay of the same buffers (compare with hot (L2-resident)), {}. What was tried to close the gap "
                   "to the copy, with predictions and outcomes: NOTES.md, where present.\n\n",
                   method(r.timing.rotated), method(r.timing.l2_resident), method(r.timing.cold), r.timing.repetitions,
                   framework.source.empty()
                       ? std::string("n/a: not measured, as no runtime.json (the torch stage's times) lies beside "
                                     "this GPU's reports")
                       : "from " + markdown_text(framework.source) + " (n/a: a shape it did not measure)");
  }
  fmt::format_to(std::back_inserter(out),
                 "Policy `{}` (heuristics.yaml): best exact and chosen are ranked by {}. Rotation K: the copies of "
                 "the inputs the rotated regime cycles through, the fewest whose bytes reach twice the L2 ({}), "
                 "and their working set. Run-to-run noise: (max - min) / median of the figures over their pass's "
                 "copy, across separate passes of this sweep; the gate's noise.\n\n",
                 policy_name(h.policy),
                 h.policy == ChooserPolicy::both
                     ? std::string("the sum of the hot (rotated) and the cold figure, each over its copy")
                     : std::string(regime_label(figure)),
                 d.l2_bytes > 0 ? fmt::format("L2 {}", mebibytes(d.l2_bytes)) : std::string("L2 unknown"));
  out += search_paragraph(r);
  if (!column.common.empty()) {
    fmt::format_to(std::back_inserter(out), "Every shape has {}.\n\n",
                   markdown_text(fmt::format("{}", fmt::join(column.common, ", "))));
  }
  fmt::format_to(std::back_inserter(out),
                 "| shape | ({}) | rows | torch eager µs | reference chain µs (rotated / L2-resident / cold) "
                 "| best exact | copy µs (rotated / L2-resident / cold) | hot (rotated) µs | hot (rotated)/copy "
                 "| hot (L2-resident) µs | hot (L2-resident)/copy | cold µs | cold/copy | rotation K "
                 "| run-to-run noise (rotated / L2-resident / cold) | chosen | exact |\n"
                 "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n",
                 markdown_text(fmt::format("{}", fmt::join(column.shown, ", "))));
  int exact = 0, total = 0;
  for (const ShapeResult& s : r.shapes) {
    out += shape_row(s, h, column, framework, d);
    exact += exact_count(s);
    total += static_cast<int>(s.variants.size());
  }
  fmt::format_to(std::back_inserter(out),
                 "\n{} of {} (shape, variant) pairs are bit-exact. Chosen: the configuration of "
                 "heuristics.yaml for the shape's size ({}) and row count.{}\n\n",
                 exact, total, size, not_chosen_sentence(r, h, family));
  out += sm_clock_paragraph(r);
  if (!targets.shapes.empty()) out += targets_section(r, targets, figure);
  out += "## Heatmaps\n\n";
  const std::vector<HeatmapFile> heatmaps = summary_heatmaps(r, figure);
  if (heatmaps.empty())
    out += fmt::format("No shape has an exact variant timed {}: timing needs a GPU.\n", regime_label(figure));
  for (const HeatmapFile& f : heatmaps) {
    fmt::format_to(std::back_inserter(out), "{} {}, {}:\n\n![{} median of {}]({})\n\n", size, f.size,
                   markdown_text(f.shape), regime_label(figure), markdown_text(f.shape), f.file_name);
  }
  out += fmt::format(
             "## What each axis is worth\n\nPer shape and axis, the {} median (µs) of the fastest exact "
             "variant with each value of the axis. Every speed lever is an axis, so this is each lever "
             "measured against all the others in the same run.\n\n",
             regime_label(figure)) +
         axis_effects_section(r, family, figure) + "\n";
  out += table_buys_section(r, h) + "\n";
  out += "## Variants that are not bit-exact\n\n" + not_exact_section(r);
  return out;
}

}  // namespace exactune
