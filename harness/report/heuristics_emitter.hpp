// The generated forms of heuristics.yaml, for code that does not link exactune:
// a self-contained C++17 header (C++ and the host side of CUDA) and a JSON
// table (Python). Both are pure functions of the heuristics: no timestamps, no
// paths, so regenerating them from the same file changes no byte.
#pragma once
#include <string>

#include "choose/heuristics.hpp"

namespace exactune {

// What `exactune emit-header` writes, next to heuristics.yaml.
inline constexpr const char* kHeuristicsHeaderFile = "exactune_heuristics.hpp";
inline constexpr const char* kHeuristicsJsonFile = "heuristics.json";

// Both follow the family the heuristics name (FamilyRegistry): the header's
// namespace is exactune_heuristics::<family>, so that the headers of several
// families can be included together; select()'s size argument, a table
// entry's size and the fallbacks of rule 2 are the family's (KernelFamily::
// size_parameter, size_fallbacks). Throws exactune::input_error when the family
// is unknown.
std::string emit_header(const Heuristics& heuristics);
std::string emit_json(const Heuristics& heuristics);

}  // namespace exactune
