// reports/<gpu-slug>/<family>/: every file a sweep leaves, each a function of the
// results and of the inputs read beside them (store/report_inputs.hpp):
// sweep.yaml (the evidence), heuristics.yaml (the choices), the generated header
// and JSON (from heuristics.yaml and the record of verified defaults), summary.md
// and its heatmaps. summary.md also sets speed targets against the results.
// And reports/tables/: the tables of every family on every GPU swept, a function
// of all the heuristics.yaml together, and of the sweeps beside them for what the tables buy.
#pragma once
#include <filesystem>
#include <optional>
#include <vector>

#include <exactune/results.hpp>

#include "report/file_set.hpp"
#include "store/defaults_record.hpp"
#include "store/family_tables.hpp"
#include "store/heuristics.hpp"
#include "store/report_inputs.hpp"

namespace exactune {

// Each function writes its files as one set (write_file_set): every text is
// made first, so a failure (an invalid policy, a name that cannot be a file, a
// folder in a file's place) leaves every file as it was.

// Returns the files written, in the order above. inputs.policy is the chooser's
// (heuristics.yaml names it; summary.md ranks and draws by it).
std::vector<std::filesystem::path> write_reports(const SweepResults& results, const std::filesystem::path& directory,
                                                 const ReportInputs& inputs);

// The header and JSON of one GPU's heuristics, serving the defaults where
// `defaults_record` verified them: what `exactune emit-header` writes next to
// a heuristics.yaml, and the sweep beside its own.
std::vector<GeneratedFile> generated_tables_files(const Heuristics& heuristics,
                                                  const std::optional<DefaultsRecord>& defaults_record,
                                                  const std::optional<DefaultsRecord>& device_record);
std::vector<std::filesystem::path> write_generated_tables(const Heuristics& heuristics,
                                                          const std::optional<DefaultsRecord>& defaults_record,
                                                          const std::optional<DefaultsRecord>& device_record,
                                                          const std::filesystem::path& directory);

// What `exactune tables` writes of `families` (tables_by_family): exactune_tables.hpp,
// exactune_tables.json, then per family and device its config files (report/device_config_files.hpp),
// then table_vs_rule.md: what the tables buy, from `sweeps` (load_sweeps_beside; report/table_buys.hpp).
std::vector<GeneratedFile> tables_files(const std::vector<FamilyTables>& families,
                                        const std::vector<SweptFamily>& sweeps);
// Writes them under `directory`; returns their paths.
std::vector<std::filesystem::path> write_tables(const std::vector<FamilyTables>& families,
                                                const std::vector<SweptFamily>& sweeps,
                                                const std::filesystem::path& directory);

}  // namespace exactune
