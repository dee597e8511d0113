#include "gate/gate_power_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include <exactune/error.hpp>

#include "time/comparison.hpp"

namespace exactune {

GatePower measure_gate_power(const SweepResults& baseline, const std::vector<GatePowerRun>& runs,
                             const GateOptions& options) {
  if (runs.empty()) throw input_error("gate power: no runs to count");
  GatePower power;
  power.family = baseline.family;
  power.gpu = baseline.device.name;
  power.threshold = options.threshold;
  power.confidence = options.confidence;
  std::map<double, GatePowerLevel> levels;
  std::map<double, std::vector<double>> estimates;
  for (const GatePowerRun& run : runs) {
    const GateReport report = compare_sweeps(baseline, run.sweep, options);
    GatePowerLevel& level = levels[run.planted];
    level.planted = run.planted;
    ++level.runs;
    const bool ambiguous = report.count(GateChange::ambiguous) > 0;
    if (!report.passed()) {
      ++level.failed;
    } else if (ambiguous) {
      ++level.ambiguous;
    }
    int figures = 0;
    for (const GateFinding& f : report.findings) {
      if (f.ratio) {
        estimates[run.planted].push_back(*f.ratio - 1);
        ++figures;
      }
    }
    power.figures = std::max(power.figures, figures);
  }
  for (auto& [planted, level] : levels) {
    const std::vector<double>& e = estimates[planted];
    level.measured = e.empty() ? 0.0 : median_of(e);
    power.levels.push_back(level);
  }
  return power;
}

}  // namespace exactune
