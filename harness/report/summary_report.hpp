// summary.md: a sweep's results as a person reads them, per
// shape torch's own eager time, the reference chain, the best exact variant by
// the chooser's policy, the roofline (a copy of the same bytes), the best's
// time hot (rotated), hot (L2-resident) and cold with its ratio to the copy,
// the rotation and the run-to-run noise, and the chosen variant; and where in
// the variant space the time goes (with the heatmaps of report/heatmap_svg.hpp);
// and what the table buys against the framework's hand rule (report/table_buys.hpp).
#pragma once
#include <string>
#include <vector>

#include <exactune/results.hpp>

#include "store/framework_times.hpp"
#include "store/heuristics.hpp"
#include "store/targets.hpp"

namespace exactune {

// Ranked by the heuristics' policy. With targets (targets.yaml), a section that
// sets each against the sweep; with the framework's own times (runtime.json),
// torch's eager chain beside the reference chain ("n/a" without, and why).
// The family the results name (FamilyRegistry) gives the size parameter's name.
std::string summary_markdown(const SweepResults& results, const Heuristics& heuristics, const Targets& targets = {},
                             const FrameworkTimes& framework = {});

}  // namespace exactune
