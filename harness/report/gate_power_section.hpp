// The "The gate on this GPU" section of summary.md, from the gate_power.json
// beside a sweep (store/gate_power.hpp): how often gate mode failed an
// unchanged build, and how often it caught each planted slowdown, against the
// goals CI relies on, with the slowdown the runs measured beside the planted.
#pragma once
#include <string>

#include "store/gate_power.hpp"

namespace exactune {

std::string gate_power_section(const GatePower& power);

}  // namespace exactune
