// Re-measuring what is ambiguous. A figure whose interval is too wide to tell
// gets fresh samples before any verdict: gate mode runs its narrowed sweep
// again (ci/gate_mode.sh), each run timing the copy beside the chosen
// configurations, and the gate pools the runs. Pooling happens against the
// first run's copy: each later run's samples are scaled by the ratio of the two
// runs' copy medians for that shape and regime, so a clock that moved between
// runs cancels as it does within one. The samples only grow; a pooled figure
// never loses the samples it had, and counts the runs it holds (Timing::runs):
// the mean level of k separate runs varies between runs by 1/sqrt(k) of one
// run's, so the gate's between-run widening shrinks with each re-measure, and
// an interval too wide to tell can become one that tells.
#pragma once
#include <string>
#include <vector>

#include <exactune/results.hpp>

#include "gate/gate.hpp"

namespace exactune {

// The shapes with an ambiguous speed finding, in report order, each once.
std::vector<std::string> shapes_to_remeasure(const GateReport& report);

// Adds the samples of `again`, another run of the same narrowed sweep, to
// `candidate`'s figures (variants, copy, reference chain) and recomputes their
// statistics. A figure without samples on either side is left as it was.
// Throws exactune::input_error when the two runs differ in family, GPU, seed or
// reference recipe: their samples do not pool.
void pool_remeasured(SweepResults& candidate, const SweepResults& again);

}  // namespace exactune
