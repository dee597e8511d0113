// A strategy's screen as the sweep reads it back from its step's record (the
// records' format is timing_steps.hpp's): one figure per variant, as the
// chooser's policy ranks, whether the step was measured now or replayed from
// an earlier worker's journal.
#pragma once
#include <nlohmann/json.hpp>

#include <vector>

#include <exactune/results.hpp>

#include "strategies/search_strategy.hpp"
#include "sweep/step_runner.hpp"

namespace exactune {

// A screen from its samples per regime (a journaled record's): one regime's
// median, or several regimes' medians each over its copy's, summed, as the
// chooser's policy `both` ranks (summed as they are where a copy is missing).
Screen screen_from_samples(const ShapeResult& s, const std::vector<TimingRegime>& regimes, const StepResult& screened);

}  // namespace exactune
