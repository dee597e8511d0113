// reports/<gpu-slug>/<family>/: every file a sweep leaves, each a function of the
// results: sweep.yaml (the evidence), heuristics.yaml (the choices), the
// generated header and JSON (from heuristics.yaml alone), summary.md and its
// heatmaps. summary.md also sets speed targets (a targets.yaml, written by hand
// next to the sweep.yaml it judges) against the results.
#pragma once
#include <filesystem>
#include <vector>

#include <exactune/results.hpp>
#include "choose/targets.hpp"

namespace exactune {

// Returns the files written, in the order above.
std::vector<std::filesystem::path> write_reports(const SweepResults& results, const std::filesystem::path& directory,
                                                 const Targets& targets = {});

// The header and JSON next to a heuristics.yaml (or in `directory`), regenerated
// from it alone: what `exactune emit-header` and the sweep both do.
std::vector<std::filesystem::path> write_generated_tables(const std::filesystem::path& heuristics_yaml,
                                                          const std::filesystem::path& directory);

}  // namespace exactune
