// Runtime tables of the toy family (toy_family/), for the tests of what is
// served from tables without a GPU: one GPU of sm_90 with a tuned length of
// two row buckets and a default that 8-byte aligned data narrows, and a global
// default verified at every length the toy takes. exactune_tables.json as
// `exactune tables` writes it, with only the fields the runtime reads.
#pragma once
#include <filesystem>
#include <fstream>

namespace exactune_test {

inline constexpr const char* kToyTables = R"({
  "generated": "by hand for the tests",
  "format_version": 1,
  "families": [{
    "family": "toy_double",
    "select": {"size": "length"},
    "devices": [
      {"name": "GPU A", "arch": "sm_90", "cc_major": 9, "cc_minor": 0, "sm_count": 132,
       "default": {"variant": "t64_v8_right"},
       "default_fallbacks": [{"config": {"variant": "t64_v4_right"}}],
       "table": [
         {"length": 256, "max_rows": 100, "config": {"variant": "t128_v8_right"}},
         {"length": 256, "max_rows": null, "config": {"variant": "t256_v4_right"}}]}],
    "global_default": {"variant": "t32_v4_right"},
    "verified": [{"variant": "t128_v8_right", "first": 256, "last": 256, "step": 1},
                 {"variant": "t256_v4_right", "first": 256, "last": 256, "step": 1},
                 {"variant": "t64_v8_right", "first": 64, "last": 4096, "step": 8},
                 {"variant": "t64_v4_right", "first": 64, "last": 4096, "step": 4},
                 {"variant": "t32_v4_right", "first": 4, "last": 8192, "step": 4}]}]
})";

// Writes them as `directory`/exactune_tables.json, what EXACTUNE_TABLES_DIR names.
inline void write_toy_tables(const std::filesystem::path& directory) {
  std::filesystem::create_directories(directory);
  std::ofstream(directory / "exactune_tables.json") << kToyTables;
}

}  // namespace exactune_test
