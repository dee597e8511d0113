// The gate's report as people and CI read it: a table of the findings, one
// summary line, and JUnit XML.
#pragma once
#include <string>

#include "gate/gate.hpp"

namespace exactune {

// The findings as a table, then the failure messages in full.
std::string render_gate_table(const GateReport& report);
// "gate: PASS: 0 lost exactness, 0 slower beyond noise, 3 within noise (threshold 5%)"
std::string gate_summary_line(const GateReport& report);
// One <testsuite name="exactune-gate">, a <testcase> per (shape, check):
// "exactness", and "<regime>_speed" (rotated_speed, l2_resident_speed, cold_speed).
std::string gate_junit_xml(const GateReport& report);

}  // namespace exactune
