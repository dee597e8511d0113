// The gate's power, from gate-mode runs (ci/gpu.sh gate-power): each run is a
// narrowed sweep of the chosen configurations, some with a slowdown planted in
// every variant kernel, gated against one baseline as CI gates a change. A run
// at planted 0 that fails is a false alarm; a run with a plant that fails has
// caught it. What the comparison estimated is kept beside, so a reader sees
// the slowdown the plant really made.
#pragma once
#include <vector>

#include <exactune/results.hpp>

#include "gate/gate.hpp"
#include "store/gate_power.hpp"

namespace exactune {

struct GatePowerRun {
  double planted = 0;  // the slowdown planted in this run's kernels (0: none)
  SweepResults sweep;  // its narrowed sweep
  // The same narrowed sweep run again where the gate found the first run
  // ambiguous (ci/gate_power.sh re-measures as ci/gate_mode.sh does): pooled
  // into `sweep` before the gate judges it (gate/remeasure.hpp).
  std::vector<SweepResults> remeasured{};
};

// Gates each run (its re-measures pooled) against `baseline` with `options`
// and counts, per planted level (ascending), the runs that failed and those
// left ambiguous, with the median estimated slowdown of the gated figures; and,
// per gated figure, what the unchanged runs (planted 0) saw of it. Throws
// exactune::input_error when there are no runs, or a re-measure does not pool
// with its run.
GatePower measure_gate_power(const SweepResults& baseline, const std::vector<GatePowerRun>& runs,
                             const GateOptions& options);

}  // namespace exactune
