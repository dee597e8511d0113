// The generated forms of heuristics.yaml, for code that does not link exactune:
// a self-contained C++17 header (C++ and the host side of CUDA) and a JSON
// table (Python). Both are pure functions of the heuristics: no timestamps, no
// paths, so regenerating them from the same file changes no byte.
#pragma once
#include <string>

#include "heuristics.hpp"

namespace exactune {

// What `exactune emit-header` writes, next to heuristics.yaml.
inline constexpr const char* kHeuristicsHeaderFile = "exactune_heuristics.hpp";
inline constexpr const char* kHeuristicsJsonFile = "heuristics.json";

std::string emit_header(const Heuristics& heuristics);
std::string emit_json(const Heuristics& heuristics);

}  // namespace exactune
