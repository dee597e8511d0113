// How a sweep's timing steps write their figures into the records it
// journals, and how it reads them back: a resumed sweep replays records
// written by an earlier worker, so that the format here is the journal's and
// must stay as it is.
#pragma once
#include <nlohmann/json.hpp>

#include <vector>

#include <exactune/results.hpp>
#include "strategies/search_strategy.hpp"

namespace exactune {

// A Timing as a record holds it: [median_us, min_us, max_us, samples].
nlohmann::json timing_json(const Timing& t);
Timing timing_from_json(const nlohmann::json& j);

// A screen from its samples per regime (a journaled record's): one regime's
// median, or several regimes' medians each over its copy's, summed, as the
// chooser's policy `both` ranks (summed as they are where a copy is missing).
Screen screen_from_samples(const ShapeResult& s, const std::vector<TimingRegime>& regimes,
                           const nlohmann::json& samples);

}  // namespace exactune
