// The kinds of change the gate finds, each with its verdict and its words: the
// comparison (gate.cpp) judges a finding by its kind, the rendering
// (gate_render.cpp) names and counts it, from this one table.
#pragma once
#include <array>
#include <string_view>

#include "gate/gate.hpp"

namespace exactune {

struct ChangeTraits {
  GateChange change;
  GateVerdict verdict;
  std::string_view label;   // the table's "change" column; the summary's phrase for one
  std::string_view plural;  // the summary's phrase for several
  bool always_counted;      // in the summary even at zero: what a reader looks for first
};

// In the order the summary line counts them (failures first).
extern const std::array<ChangeTraits, 19> kGateChanges;
const ChangeTraits& change_traits(GateChange change);

}  // namespace exactune
