// The JSON object of one family's tables (heuristics.json is one; exactune_tables.json
// lists one per family) as a value, for the files made from it: the
// per-device config files re-key it, so that they spell every configuration as
// it does. Private to the report library (nlohmann::json is not part of its
// interface).
#pragma once
#include <nlohmann/json.hpp>

#include <string_view>

#include "store/family_tables.hpp"

namespace exactune {

using GeneratedJson = nlohmann::ordered_json;  // keys in the order written: "generated" first

// {"generated": generated_by, "format_version", "family", "select", "devices", "global_default",
// "verified": [{"variant", "first", "last", "step", "evidence"}: every size range a variant was proven at]}.
// Throws as emit_json does. Written by heuristics_json_emitter.cpp.
GeneratedJson family_json(const FamilyTables& tables, std::string_view generated_by);

}  // namespace exactune
