#include "report/gate_power_section.hpp"

#include <fmt/format.h>

#include "util/markdown_text.hpp"

namespace exactune {
namespace {

// The goals a CI gate is held to: no false "slower" on an unchanged build and
// at most one ambiguous run in 20; a +10% slowdown caught in 95% of runs, +5%
// in 80%. Other sizes are shown without a goal.
std::string goal_for(double planted) {
  if (planted == 0) return "0 failed, at most 5% ambiguous";
  if (planted >= 0.0999 && planted <= 0.1001) return "caught in at least 95%";
  if (planted >= 0.0499 && planted <= 0.0501) return "caught in at least 80%";
  return "";
}

bool goal_met(const GatePowerLevel& l) {
  if (l.planted == 0) return l.failed == 0 && l.ambiguous * 20 <= l.runs;
  if (l.planted >= 0.0999 && l.planted <= 0.1001) return l.failed * 100 >= 95 * l.runs;
  if (l.planted >= 0.0499 && l.planted <= 0.0501) return l.failed * 100 >= 80 * l.runs;
  return true;
}

// Per gated figure, what the unchanged runs saw: the check of the gate's
// noise model (its interval's half-width against the spread between runs).
std::string unchanged_figures_table(const GatePower& power) {
  std::string out = fmt::format(
      "\nEach gated figure over the unchanged build's runs: how far its estimate moved from run to run (the "
      "standard deviation, in log: about a fraction), and the half-width of the gate's interval on it (the median "
      "over the runs). Where the gate's noise is right, the half-width is about z spreads, z the normal quantile of "
      "the confidence (1.96 at 95%): much less, and unchanged builds fail; much more, and they stay ambiguous. A "
      "figure can be \"same\" only where the half-width is below the threshold ({:g}%).\n\n",
      power.threshold * 100);
  out += "| shape | regime | runs | slower | ambiguous | spread | half-width | half-width / spread |\n";
  out += "|---|---|---|---|---|---|---|---|\n";
  for (const GatePowerFigure& f : power.unchanged) {
    out += fmt::format("| {} | {} | {} | {} | {} | {:.1f}% | {:.1f}% | {} |\n", markdown_text(f.shape), f.regime,
                       f.runs, f.slower, f.ambiguous, f.spread * 100, f.half_width * 100,
                       f.spread > 0 ? fmt::format("{:.1f}", f.half_width / f.spread) : std::string("-"));
  }
  return out;
}

}  // namespace

std::string gate_power_section(const GatePower& power) {
  std::string out = "## The gate on this GPU\n\n";
  out += fmt::format(
      "Gate-mode runs (`ci/gate_mode.sh`'s narrowed sweep, then `exactune gate` at a threshold of {:g}% and "
      "{:g}% confidence) on {}, against the committed sweep; {} gated figures a run. A planted slowdown holds every "
      "CTA of every variant kernel that much longer than its work took (`exactune sweep --plant-slowdown`); "
      "\"measured\" is the median slowdown the comparison estimated. Measured by `bash ci/gpu.sh gate-power`.\n\n",
      power.threshold * 100, power.confidence * 100, markdown_text(power.gpu), power.figures);
  out += "| planted | runs | failed | ambiguous | measured | goal | met |\n|---|---|---|---|---|---|---|\n";
  for (const GatePowerLevel& l : power.levels) {
    const std::string goal = goal_for(l.planted);
    out += fmt::format("| {} | {} | {} | {} | {:+.1f}% | {} | {} |\n",
                       l.planted == 0 ? "none" : fmt::format("+{:g}%", l.planted * 100), l.runs, l.failed, l.ambiguous,
                       l.measured * 100, goal.empty() ? "-" : goal,
                       goal.empty()  ? "-"
                       : goal_met(l) ? "yes"
                                     : "no");
  }
  if (!power.unchanged.empty()) out += unchanged_figures_table(power);
  return out;
}

}  // namespace exactune
