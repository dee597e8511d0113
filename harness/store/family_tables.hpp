// One family's heuristics for every GPU it was swept on, and the record of
// where its defaults were verified: what the generated tables are made from. A
// heuristics.yaml holds one GPU; `exactune tables` gathers
// reports/<gpu-slug>/<family>/heuristics.yaml of every GPU into one
// FamilyTables per family, and `exactune emit-header` makes the one-GPU case.
// Both read reports/tables/<family>/verified_defaults.yaml (`exactune
// verify-defaults`): the tables serve a configuration only at the sizes it was
// verified at, a tuned choice at its own size (exact in its sweep), a default
// at the sizes of the record.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <exactune/results.hpp>

#include "store/defaults_record.hpp"
#include "store/heuristics.hpp"

namespace exactune {

// The format of a family's generated tables (the JSON's format_version): what
// select() reads, which heuristics.yaml's version 2 (same_as_best, a record of
// how each choice was made) left as it was.
inline constexpr int kFamilyTablesFormatVersion = 1;

struct FamilyTables {
  std::string family;
  int format_version = kFamilyTablesFormatVersion;
  std::vector<DeviceHeuristics> devices;  // by slug, then name: the order select() tries them in
  Configuration global_default;
  // Where the defaults and narrowed forms were verified on the host (--cpu);
  // none: they serve no size on a GPU without a record of its own.
  std::optional<DefaultsRecord> defaults_record;
  // Records made on GPUs of these tables (DefaultsRecord::device), each
  // beside its GPU's heuristics.yaml: that GPU's own evidence. A GPU with one
  // is served from its own evidence alone, the host's record no more.
  std::vector<DefaultsRecord> device_records;
};

// Sizes at which one variant was proven bit-exact, by what, and for which GPU.
struct VerifiedSizes {
  std::string variant;
  std::vector<SizeRange> sizes;
  std::string evidence;  // e.g. "exact in the sweep on NVIDIA H200"
  // The GPU whose problems it serves (DeviceHeuristics::name): its sweep or
  // its own record; "" (the host's record): every GPU without a record of its
  // own, and those no table knows.
  std::string device;
};

// Every (variant, size) the tables may serve: each device's tuned choices at
// their sizes (device by device, variants in first-choice order), then the
// GPUs' own records, then the host's record, at their verified sizes.
std::vector<VerifiedSizes> verified_sizes(const FamilyTables& tables);
// Whether the tables may serve `variant` at `size` on `device` (the device
// they resolved the GPU to; "" for none): by evidence for that device, or,
// where it has no record of its own, by the host's.
bool is_verified(const std::vector<VerifiedSizes>& verified, std::string_view variant, int size,
                 std::string_view device, bool device_has_own_record);
// The record device `name` made itself, or nullptr.
const DefaultsRecord* own_record(const FamilyTables& tables, std::string_view device_name);

// The record of `family` in `tables_dir` (<tables_dir>/<family>/verified_defaults.yaml),
// or none when it has none. Throws exactune::input_error when it names another
// family or a reference recipe other than the family's: a record of another
// reference proves nothing about this one.
std::optional<DefaultsRecord> defaults_record_of(const std::string& family, const std::filesystem::path& tables_dir);
// The same, into tables.defaults_record (none when there is no record).
void read_defaults_record(FamilyTables& tables, const std::filesystem::path& tables_dir);
// Where a heuristics.yaml at <reports>/<slug>/<family>/ finds the records: <reports>/tables.
std::filesystem::path tables_dir_of(const std::filesystem::path& heuristics_yaml);
// The record a GPU made beside `heuristics_yaml` (verified_defaults.yaml in its
// folder), or none. Throws exactune::input_error as defaults_record_of does,
// and when it was made on the host or on another GPU than `device_name` (any
// GPU when `device_name` is "").
std::optional<DefaultsRecord> device_record_beside(const std::filesystem::path& heuristics_yaml,
                                                   const std::string& family, const std::string& device_name);

// A heuristics.yaml as read, with its path for the errors that name it.
struct HeuristicsFile {
  std::string path;
  Heuristics heuristics;
};

// The tables of one GPU: what emit-header writes next to its heuristics.yaml.
FamilyTables family_tables(const Heuristics& heuristics);
// The tables of several GPUs of one family. Throws exactune::input_error,
// naming both files, when two name other families, other format versions or
// other global defaults, or the same device; and when `files` is empty.
FamilyTables family_tables(const std::vector<HeuristicsFile>& files);

// Every <reports>/<slug>/<family>/heuristics.yaml, in path order (a folder
// without one is skipped), read strictly: a file that fails throws its
// exactune::input_error "<file>:<line>: ...". Throws exactune::input_error
// when `reports` is no folder or holds no such file.
std::vector<HeuristicsFile> load_swept_heuristics(const std::filesystem::path& reports);

// A GPU's sweep of one family with the heuristics.yaml beside it: what the page
// of what the tables buy (report/table_buys.hpp) sets side by side.
struct SweptFamily {
  std::string path;  // the sweep.yaml, for the errors that name it
  SweepResults results;
  Heuristics heuristics;
};

// For each of `files` with a sweep.yaml beside it, that sweep read strictly
// (a file that fails throws its exactune::input_error), in the order of `files`.
std::vector<SweptFamily> load_sweeps_beside(const std::vector<HeuristicsFile>& files);

// `files` grouped into one FamilyTables per family, the families in
// FamilyRegistry order.
std::vector<FamilyTables> tables_by_family(const std::vector<HeuristicsFile>& files);

}  // namespace exactune
