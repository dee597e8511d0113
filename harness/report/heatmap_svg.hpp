// The heatmaps summary.md links: per size, the largest shape's median over the
// family's heatmap axes (KernelFamily::heatmap_axes), as an SVG a browser shows
// inline. Where in the variant space the time goes, at a glance.
#pragma once
#include <string>
#include <vector>

#include <exactune/results.hpp>

namespace exactune {

// One heatmap that summary.md links, by file name relative to summary.md.
struct HeatmapFile {
  int size = 0;  // the value of the family's size parameter
  std::string shape;
  std::string file_name;  // "heatmap_<shape>.svg"
};

// Per size, the shape with the most rows (the first of equals) that has an
// exact variant timed in `regime`: the heatmaps summary_markdown links (with
// the policy's figure, policy_figure), for the caller to write with heatmap_svg.
// Throws exactune::input_error when such a shape's name breaks the rule of
// shape names (shape_name_problem), before any file is named by it.
std::vector<HeatmapFile> summary_heatmaps(const SweepResults& results, TimingRegime regime = TimingRegime::rotated);

// The median in `regime` (as a multiple of the same regime's copy, when the
// copy was timed) over the family's heatmap axes (KernelFamily::heatmap_axes):
// columns x rows, one panel per value of the panel axis; each cell the best
// exact variant over the other axes, which its label names. Throws
// exactune::error when the sweep has no such shape at that size.
std::string heatmap_svg(const SweepResults& results, int size, const std::string& shape_name,
                        TimingRegime regime = TimingRegime::rotated);

}  // namespace exactune
