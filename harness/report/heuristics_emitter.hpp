// The generated forms of heuristics.yaml, for code that does not link exactune:
// a self-contained C++17 header (C++ and the host side of CUDA) and a JSON
// table (Python), each serving a configuration only at the sizes it was proven
// at (FamilyTables::defaults_record, verified_sizes). Both are pure functions of
// the tables: no timestamps, no paths, so regenerating them from the same files
// changes no byte. Written by heuristics_cpp_emitter.cpp (the header, whose
// fixed code is the C++ of generated/) and heuristics_json_emitter.cpp (the
// JSON), from one view of the tables (heuristics_view.hpp).
#pragma once
#include <string>
#include <vector>

#include "store/family_tables.hpp"
#include "store/heuristics.hpp"

namespace exactune {

// What `exactune emit-header` writes, next to heuristics.yaml: one family on one GPU.
inline constexpr const char* kHeuristicsHeaderFile = "exactune_heuristics.hpp";
inline constexpr const char* kHeuristicsJsonFile = "heuristics.json";
// What `exactune tables` writes: every family on every GPU swept.
inline constexpr const char* kTablesHeaderFile = "exactune_tables.hpp";
inline constexpr const char* kTablesJsonFile = "exactune_tables.json";

// Both follow the family the tables name (FamilyRegistry): the header's
// namespace is exactune_heuristics::<family>, so that the headers of several
// families can be included together; select()'s size argument, a table
// entry's size and the fallbacks of rule 3 are the family's (KernelFamily::
// size_parameter, size_fallbacks). Throws exactune::input_error when the family
// is unknown.
std::string emit_header(const FamilyTables& tables);
std::string emit_json(const FamilyTables& tables);
// The tables of the one GPU the heuristics hold, without a record of verified
// defaults: its tuned choices serve their sizes, the defaults none.
inline std::string emit_header(const Heuristics& heuristics) { return emit_header(family_tables(heuristics)); }
inline std::string emit_json(const Heuristics& heuristics) { return emit_json(family_tables(heuristics)); }

// One header with every family's namespace (as emit_header writes it), and
// one JSON {"generated", "format_version", "families": [the object emit_json
// writes, per family]}.
std::string emit_tables_header(const std::vector<FamilyTables>& families);
std::string emit_tables_json(const std::vector<FamilyTables>& families);

}  // namespace exactune
