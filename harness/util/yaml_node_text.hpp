// How a YAML node reads in an error message: its 1-based line, and what it is.
// Shared by the readers of shapes, sweep.yaml and heuristics.yaml.
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>

namespace exactune {

// yaml-cpp marks are 0-based, and -1 on nodes that have no position.
int line_of(const YAML::Node& node);
// "a list", "a map", "'text'" or "nothing": a value that has the wrong type.
std::string describe(const YAML::Node& node);

}  // namespace exactune
