// reports/<gpu-slug>/<family>/gate_power.json: how far the gate's verdicts can
// be trusted on one GPU, measured there (exactune gate-power, ci/gpu.sh
// gate-power). Gate-mode runs of an unchanged build count its false alarms;
// runs with a slowdown planted in every variant kernel
// (kernel_templates/planted_slowdown.cuh) count how often each size of
// slowdown is caught, beside the slowdown the runs measured. summary.md shows
// it. This file is the format's one home: its model, writer and reader.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace exactune {

// The runs at one planted slowdown (0: an unchanged build).
struct GatePowerLevel {
  double planted = 0;  // the fraction planted: 0.05 = +5%
  int runs = 0;
  int failed = 0;     // runs the gate failed: at planted 0 false alarms, above it catches
  int ambiguous = 0;  // runs with an ambiguous figure and no failure
  // The median over runs and gated figures of the slowdown the comparison
  // estimated (candidate / baseline - 1, each against its run's copy).
  double measured = 0;
};

// One gated figure (a shape's chosen configuration in one regime) over the
// runs of an unchanged build: how often it failed or was ambiguous, how far
// its estimate moved from run to run, and how wide the gate's interval was.
// If the gate's noise is right, the half-width is about 2 spreads (1.96 at
// 95%): much less, and unchanged builds fail; much more, and they stay
// ambiguous.
struct GatePowerFigure {
  std::string shape;
  std::string regime;
  int runs = 0;
  int slower = 0;
  int ambiguous = 0;
  double spread = 0;      // sd over the runs of log(estimate): the between-run noise seen
  double half_width = 0;  // median over the runs of the interval's half-width in log: the noise allowed
};

struct GatePower {
  std::string family;
  std::string gpu;  // the GPU's name, as the sweep records it
  double threshold = 0;
  double confidence = 0;
  int figures = 0;                         // gated figures a run (shapes x regimes)
  std::vector<GatePowerLevel> levels;      // ascending planted
  std::vector<GatePowerFigure> unchanged;  // per gated figure, from the runs at planted 0 (the gate's order)
};

// The JSON text, its first key saying how it was made.
std::string gate_power_json(const GatePower& power);
void write_gate_power_file(const std::filesystem::path& path, const GatePower& power);
// Throws exactune::input_error naming the file when it is not what
// write_gate_power_file writes.
GatePower read_gate_power_file(const std::filesystem::path& path);
// The record beside a sweep (<folder>/gate_power.json), or none.
std::optional<GatePower> gate_power_beside(const std::filesystem::path& sweep_folder);

}  // namespace exactune
