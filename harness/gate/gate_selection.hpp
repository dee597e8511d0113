// Gate mode (`exactune sweep --only heuristics.yaml`): the selection that
// checks a committed table in seconds instead of a full sweep. Per choice of
// the table, its chosen variant and its runner-up, on the choice's evidence
// shape; nothing else (not the device default, not the shapes no choice
// names): the gate then checks exactly what the table chose, against the
// baseline sweep it was chosen from.
#pragma once
#include <string>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "space/selection.hpp"
#include "store/heuristics.hpp"

namespace exactune {

// Throws exactune::input_error "<heuristics_file>:<line>: ..." when the table
// is of another family than `family`, when a choice's evidence shape is not
// among `shapes`, or when a chosen variant or runner-up is not a valid variant
// of the space at its size that `glob` matches.
Selection gate_selection(const Heuristics& heuristics, const std::string& heuristics_file, const KernelFamily& family,
                         const std::vector<Shape>& shapes, const std::string& glob);

// The command a gate-mode sweep prints as the next step: the gate of
// `candidate` against the sweep.yaml beside `heuristics_file`.
std::string gate_command_after(const std::string& heuristics_file, const std::string& candidate);

}  // namespace exactune
