// The harness's own speed on a GPU, measured beside a sweep: what ci/speed.sh
// records in <reports>/<gpu>/<family>/harness_speed.json (ci/harness_speed.py):
// the default sweep's wall time with each search strategy from a cold and a
// warm compile cache, how often the strategies chose alike, the gate mode's
// wall time and one worker per GPU against one. summary.md shows it as a
// section, so that the figures a user is promised stay next to the evidence.
#pragma once
#include <string>

#include "store/report_inputs.hpp"

namespace exactune {

// The "Harness speed" section of summary.md from a harness_speed.json (read
// beside the sweep by report_inputs_beside). Throws exactune::input_error
// naming the file when it is not what ci/harness_speed.py writes.
std::string harness_speed_section(const NamedText& record);

}  // namespace exactune
