// Which tables the runtime serves from: the ones built into the library
// (reports/tables/exactune_tables.json, embedded at build time), or, where the
// environment names a folder in EXACTUNE_TABLES_DIR, that folder's
// exactune_tables.json (what `exactune tables --out DIR` writes), so that a
// fleet can ship new tables without rebuilding.
#pragma once
#include "runtime/device_tables.hpp"

namespace exactune {

inline constexpr const char* kEmbeddedTablesPath = "reports/tables/exactune_tables.json";
inline constexpr const char* kTablesDirVariable = "EXACTUNE_TABLES_DIR";
inline constexpr const char* kTablesFile = "exactune_tables.json";

// Read once per process. Throws exactune::input_error, on every call, when the
// override folder's file is missing or malformed: a table the operator meant to
// use is never silently replaced by another.
const RuntimeTables& runtime_tables();

}  // namespace exactune
