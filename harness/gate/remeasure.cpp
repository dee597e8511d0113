#include "gate/remeasure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include <exactune/error.hpp>

#include "time/statistics.hpp"

namespace exactune {
namespace {

// Appends `more`'s samples, times `scale`, to `figure`; recomputes its statistics.
void pool_figure(std::optional<Timing>& figure, const std::optional<Timing>& more, double scale) {
  if (!figure || !more || figure->samples_us.empty() || more->samples_us.empty()) return;
  std::vector<double> pooled = figure->samples_us;
  for (double s : more->samples_us) pooled.push_back(s * scale);
  Timing t = timing_from_samples(pooled);
  t.samples_us = std::move(pooled);
  t.runs = figure->runs + more->runs;
  figure = std::move(t);
}

}  // namespace

std::vector<std::string> shapes_to_remeasure(const GateReport& report) {
  std::vector<std::string> shapes;
  for (const GateFinding& f : report.findings) {
    if (f.change == GateChange::ambiguous && std::find(shapes.begin(), shapes.end(), f.shape) == shapes.end()) {
      shapes.push_back(f.shape);
    }
  }
  return shapes;
}

void pool_remeasured(SweepResults& candidate, const SweepResults& again) {
  const auto differs = [&](const std::string& what, const std::string& first, const std::string& second) {
    if (first != second) {
      throw input_error(
          fmt::format("the re-measured run differs from the candidate in its {} ({} instead of {}): "
                      "their samples do not pool",
                      what, second, first));
    }
  };
  differs("family", candidate.family, again.family);
  differs("GPU", candidate.device.name, again.device.name);
  differs("input seed", std::to_string(candidate.seed), std::to_string(again.seed));
  differs("reference recipe", candidate.reference_recipe, again.reference_recipe);
  for (ShapeResult& shape : candidate.shapes) {
    const ShapeResult* other = again.find(shape.shape.name);
    if (other == nullptr) continue;
    for (TimingRegime r : kTimingRegimes) {
      const std::optional<Timing>& copy = shape.copy(r);
      const std::optional<Timing>& other_copy = other->copy(r);
      const double scale =
          copy && other_copy && other_copy->median_us > 0 ? copy->median_us / other_copy->median_us : 1.0;
      for (VariantResult& v : shape.variants) {
        if (const VariantResult* w = other->find(v.variant)) pool_figure(v.timing(r), w->timing(r), scale);
      }
      pool_figure(shape.reference_chain(r), other->reference_chain(r), scale);
      pool_figure(shape.copy(r), other_copy, scale);
    }
  }
}

}  // namespace exactune
