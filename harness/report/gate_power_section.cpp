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
  return out;
}

}  // namespace exactune
