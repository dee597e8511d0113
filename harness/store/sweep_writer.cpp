// sweep.yaml written: the results as a file a person can read and that diffs
// line by line, in the oldest format that holds everything they record
// (sweep_format.hpp), written whole or not at all. Raw samples (format 5) are
// written for the figures a choice or the gate rests on and no others: the
// copy and the reference chain of each shape in every regime, and in each
// regime the 8 fastest exact variants of each shape (samples_written), which
// hold the chosen configuration, its runners-up and their "same as best"
// sets; every other figure keeps its summary only.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "store/sweep_file.hpp"
#include "store/sweep_format.hpp"
#include "util/text_file.hpp"
#include "util/yaml_writer.hpp"

namespace exactune {
namespace {

using namespace sweep_format;

std::string screened_out_map(const ScreenedOut& screened) {
  KeyValues fields = {{"round", fmt::format("{}", screened.round)}};
  for (const auto& [regime, timing] : screened.timings) {
    fields.emplace_back(std::string(regime_name(regime)), yaml::flow_map(timing_fields(timing, "", kFlowUnit)));
  }
  return yaml::flow_map(fields);
}

// `run_to_run_noise: {rotated: {noise: .., passes: .., variants: ..}, ...}`, in regime order.
std::string noise_map(const std::vector<RunToRunNoise>& noises) {
  KeyValues by_regime;
  for (TimingRegime r : kTimingRegimes) {
    for (const RunToRunNoise& n : noises) {
      if (n.regime == r) by_regime.emplace_back(std::string(regime_name(r)), yaml::flow_map(noise_fields(n)));
    }
  }
  return yaml::flow_map(by_regime);
}

void write_variant(yaml::Text& out, const VariantResult& v, const ShapeResult& shape) {
  constexpr int kIndent = 8;
  out.item(kIndent - 2, "variant", yaml::string(v.variant));
  KeyValues params;
  for (const Param& p : v.params) params.emplace_back(yaml::string(p.axis), yaml::string(p.value));
  out.field(kIndent, "params", yaml::flow_map(params));
  out.field(kIndent, "registers", fmt::format("{}", v.registers));
  out.field(kIndent, "spill_bytes", fmt::format("{}", v.spill_bytes));
  out.field(kIndent, "exact", v.exact ? "true" : "false");
  out.field(kIndent, "cases", fmt::format("\"{}/{}\"", v.cases_passed, v.cases_total));
  if (!v.failure_kind.empty()) out.field(kIndent, "failure_kind", yaml::string(v.failure_kind));
  if (!v.failure.empty()) out.field(kIndent, "failure", yaml::string(v.failure));
  KeyValues ratios;
  for (TimingRegime r : kTimingRegimes) {
    const std::optional<Timing>& t = v.timing(r);
    if (!t) continue;
    out.fields(kIndent, timing_fields(*t, flat_prefix(r), kFlatUnit, samples_written(shape, v, r)));
    const std::optional<Timing>& copy = shape.copy(r);
    if (copy && copy->median_us > 0) {
      ratios.emplace_back(std::string(regime_name(r)), fmt::format("{:.3f}", t->median_us / copy->median_us));
    }
  }
  if (!ratios.empty()) out.field(kIndent, kDerivedCopyRatios, yaml::flow_map(ratios));
  if (v.screened_out) out.field(kIndent, kScreenedOut, screened_out_map(*v.screened_out));
}

void write_shape(yaml::Text& out, const ShapeResult& s) {
  constexpr int kIndent = 4;
  out.item(kIndent - 2, "name", yaml::string(s.shape.name));
  out.fields(kIndent, shape_fields(s));
  if (s.rotation) out.field(kIndent, "rotation", yaml::flow_map(rotation_fields(*s.rotation)));
  for (const auto& [key, member] : kShapeTimings) {
    if (const std::optional<Timing>& t = s.*member)
      out.field(kIndent, key, yaml::flow_map(timing_fields(*t, "", kFlowUnit, true)));
  }
  if (!s.run_to_run_noise.empty()) out.field(kIndent, "run_to_run_noise", noise_map(s.run_to_run_noise));
  if (s.sm_clock) out.field(kIndent, kSmClock, yaml::flow_map(sm_clock_fields(*s.sm_clock)));
  out.field(kIndent, kVariantCount, fmt::format("{}", s.variants.size()));
  if (s.variants.empty()) {
    out.field(kIndent, "variants", "[]");
    return;
  }
  out.line("    variants:");
  for (const VariantResult& v : s.variants) write_variant(out, v, s);
}

}  // namespace

std::string to_sweep_yaml(const SweepResults& results) {
  yaml::Text out;
  out.line(
      fmt::format("# exactune sweep results: measured by exactune sweep on {}; input to heuristics.yaml and the gate.",
                  yaml::comment_text(results.device.name)));
  out.line(
      "# Figures per regime: rotated (hot, inputs cycled past twice the L2), l2_resident (hot, the same buffers "
      "replayed),");
  out.line("# cold (L2 flushed); run_to_run_noise: how far apart separate passes were, against each pass's copy.");
  if (written_format(results) >= kFirstSamplesSweepFormat) {
    out.line(
        "# samples_us: every sample of a figure (us per launch), for the copy, the reference chain and each "
        "regime's 8 fastest exact variants.");
  }
  out.fields(0, header_fields(results));
  if (results.shapes.empty()) {
    out.field(0, "shapes", "[]");
  } else {
    out.line("shapes:");
    for (const ShapeResult& s : results.shapes) write_shape(out, s);
  }
  out.line("# The last line: a file cut short lacks it.");
  out.field(0, kShapeCount, fmt::format("{}", results.shapes.size()));
  return out.take();
}

void write_sweep_file(const SweepResults& results, const std::filesystem::path& path) {
  write_text_file(path, to_sweep_yaml(results));
}

}  // namespace exactune
