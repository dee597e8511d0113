// summary.md and its heatmaps: a sweep's results as a person reads them, per
// shape the roofline (a copy of the same bytes), the eager chain, the best
// exact variant and the chosen one; and where in the variant space the time goes.
#pragma once
#include <string>
#include <vector>

#include "heuristics.hpp"
#include "results.hpp"
#include "targets.hpp"

namespace exactune {

// One heatmap that summary.md links, by file name relative to summary.md.
struct HeatmapFile {
  int hidden = 0;
  std::string shape;
  std::string file_name;  // "heatmap_<shape>.svg"
};

// Per hidden size, the timed shape with the most rows (the first of equals):
// the heatmaps summary_markdown links, for the caller to write with heatmap_svg.
std::vector<HeatmapFile> summary_heatmaps(const SweepResults& results);

// With targets (targets.yaml), a section that sets each against the sweep.
std::string summary_markdown(const SweepResults& results, const Heuristics& heuristics, const Targets& targets = {});

// Hot median (as a multiple of the copy's, when the copy was timed) over
// num_warps x rows_per_cta, one panel per tail strategy; each cell the best
// exact variant over the other axes, which its label names. Throws
// exactune::error when the sweep has no such shape at that hidden size.
std::string heatmap_svg(const SweepResults& results, int hidden, const std::string& shape_name);

}  // namespace exactune
