// reports/<gpu-slug>/<family>/: every file a sweep leaves, each a function of the
// results: sweep.yaml (the evidence), heuristics.yaml (the choices), the
// generated header and JSON (from heuristics.yaml and the record of verified
// defaults under reports/tables/), summary.md and its
// heatmaps. summary.md also sets speed targets (a targets.yaml, written by hand
// next to the sweep.yaml it judges) against the results.
// And reports/tables/: the tables of every family on every GPU swept, a function
// of all the heuristics.yaml together.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <exactune/results.hpp>
#include "choose/heuristics.hpp"
#include "choose/targets.hpp"
#include "report/family_tables.hpp"
#include "report/file_set.hpp"
#include "report/framework_times.hpp"

namespace exactune {

// Each function writes its files as one set (write_file_set): every text is
// made first, so a failure (an invalid policy, a name that cannot be a file, a
// folder in a file's place) leaves every file as it was.

// Returns the files written, in the order above. `policy` is the chooser's
// (heuristics.yaml names it; summary.md ranks and draws by it); `tables_dir`
// holds the records of verified defaults (default: tables_dir_of the
// heuristics.yaml written, <reports>/tables for <reports>/<gpu-slug>/<family>/).
// summary.md shows the harness_speed.json of `sweep_folder` (default: `directory`),
// the folder of the sweep.yaml the results were read from.
std::vector<std::filesystem::path> write_reports(const SweepResults& results, const std::filesystem::path& directory,
                                                 const Targets& targets = {}, const FrameworkTimes& framework = {},
                                                 ChooserPolicy policy = kDefaultPolicy,
                                                 const std::optional<std::filesystem::path>& tables_dir = {},
                                                 const std::optional<std::filesystem::path>& sweep_folder = {});

// The policy of the heuristics.yaml in `folder`, so that regenerating reports
// keeps the policy they were chosen by; kDefaultPolicy when there is none.
// Throws exactune::input_error when the file is there and invalid.
ChooserPolicy policy_beside(const std::filesystem::path& folder);

// The header and JSON next to a heuristics.yaml (or in `directory`), regenerated
// from it and the record of verified defaults in `tables_dir` (read_defaults_record;
// default: tables_dir_of the yaml): what `exactune emit-header` and the sweep both do.
// The files as made from heuristics already read from `heuristics_yaml`:
std::vector<GeneratedFile> generated_tables_files(const Heuristics& heuristics,
                                                  const std::filesystem::path& heuristics_yaml,
                                                  const std::optional<std::filesystem::path>& tables_dir = {});
std::vector<std::filesystem::path> write_generated_tables(const std::filesystem::path& heuristics_yaml,
                                                          const std::filesystem::path& directory,
                                                          const std::optional<std::filesystem::path>& tables_dir = {});

// What `exactune tables` writes of `families` (tables_by_family): exactune_tables.hpp,
// exactune_tables.json, then <family>/device_name=<NAME>.json per family and device.
std::vector<GeneratedFile> tables_files(const std::vector<FamilyTables>& families);
// Writes them under `directory`; returns their paths.
std::vector<std::filesystem::path> write_tables(const std::vector<FamilyTables>& families,
                                                const std::filesystem::path& directory);

}  // namespace exactune
