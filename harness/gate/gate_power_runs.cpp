#include "gate/gate_power_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <exactune/error.hpp>

#include "gate/remeasure.hpp"
#include "time/comparison.hpp"

namespace exactune {
namespace {

// The standard deviation of `values` (0 for fewer than two).
double standard_deviation(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

// One gated figure over the unchanged runs, as they are gathered.
struct UnchangedFigure {
  GatePowerFigure counts;
  std::vector<double> log_estimates;
  std::vector<double> half_widths;
};

// Adds what one unchanged run's report says of each gated figure.
void note_unchanged(const GateReport& report, std::vector<UnchangedFigure>& figures) {
  for (const GateFinding& f : report.findings) {
    if (f.check != GateCheck::speed || !f.ratio || !f.regime) continue;
    const std::string regime(regime_name(*f.regime));
    auto it = std::find_if(figures.begin(), figures.end(), [&](const UnchangedFigure& u) {
      return u.counts.shape == f.shape && u.counts.regime == regime;
    });
    if (it == figures.end()) it = figures.insert(figures.end(), UnchangedFigure{{f.shape, regime}, {}, {}});
    ++it->counts.runs;
    if (f.change == GateChange::slower) ++it->counts.slower;
    if (f.change == GateChange::ambiguous) ++it->counts.ambiguous;
    it->log_estimates.push_back(std::log(*f.ratio));
    if (f.low && f.high) it->half_widths.push_back((std::log(*f.high) - std::log(*f.low)) / 2);
  }
}

}  // namespace

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
  std::vector<UnchangedFigure> unchanged;
  for (const GatePowerRun& run : runs) {
    SweepResults candidate = run.sweep;
    for (const SweepResults& again : run.remeasured) pool_remeasured(candidate, again);
    const GateReport report = compare_sweeps(baseline, candidate, options);
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
    if (run.planted == 0) note_unchanged(report, unchanged);
  }
  for (auto& [planted, level] : levels) {
    const std::vector<double>& e = estimates[planted];
    level.measured = e.empty() ? 0.0 : median_of(e);
    power.levels.push_back(level);
  }
  for (UnchangedFigure& u : unchanged) {
    u.counts.spread = standard_deviation(u.log_estimates);
    u.counts.half_width = u.half_widths.empty() ? 0.0 : median_of(u.half_widths);
    power.unchanged.push_back(std::move(u.counts));
  }
  return power;
}

}  // namespace exactune
