// summary.md and its heatmaps: a sweep's results as a person reads them, per
// shape torch's own eager time, the reference chain, the best exact variant by
// the chooser's policy, the roofline (a copy of the same bytes), the best's
// time hot (rotated), hot (L2-resident) and cold with its ratio to the copy,
// the rotation and the run-to-run noise, and the chosen variant; and where in
// the variant space the time goes.
#pragma once
#include <string>
#include <vector>

#include "store/heuristics.hpp"
#include <exactune/results.hpp>
#include "store/targets.hpp"
#include "store/framework_times.hpp"

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

// Ranked by the heuristics' policy. With targets (targets.yaml), a section that
// sets each against the sweep; with the framework's own times (runtime.json),
// torch's eager chain beside the reference chain ("n/a" without, and why).
// The family the results name (FamilyRegistry) gives the size parameter's name.
std::string summary_markdown(const SweepResults& results, const Heuristics& heuristics, const Targets& targets = {},
                             const FrameworkTimes& framework = {});

// The median in `regime` (as a multiple of the same regime's copy, when the
// copy was timed) over the family's heatmap axes (KernelFamily::heatmap_axes):
// columns x rows, one panel per value of the panel axis; each cell the best
// exact variant over the other axes, which its label names. Throws
// exactune::error when the sweep has no such shape at that size.
std::string heatmap_svg(const SweepResults& results, int size, const std::string& shape_name,
                        TimingRegime regime = TimingRegime::rotated);

}  // namespace exactune
