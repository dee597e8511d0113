// heuristics.yaml: the committed record of one GPU's choices for one family
// (heuristics.hpp), written by the chooser's caller and read back, strictly,
// by emit-header, tables, the gate and gate mode.
#pragma once
#include <string>
#include <string_view>

#include "store/heuristics.hpp"

namespace exactune {

// The file's keys and comments come from the family the heuristics name
// (its size parameter is the key of a choice's size).
std::string to_heuristics_yaml(const Heuristics& heuristics);
// Throws exactune::error "<source>:<line>: <what is wrong>" on invalid input
// (exactune::input_error, a kind of it, from the strict reader).
Heuristics parse_heuristics_yaml(std::string_view yaml_text, const std::string& source);
Heuristics load_heuristics_file(const std::string& path);

}  // namespace exactune
