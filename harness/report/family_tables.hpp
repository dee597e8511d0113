// One family's heuristics for every GPU it was swept on: what the generated
// tables are made from. A heuristics.yaml holds one GPU; `exactune tables`
// gathers reports/<gpu-slug>/<family>/heuristics.yaml of every GPU into one
// FamilyTables per family, and `exactune emit-header` makes the one-GPU case.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "choose/heuristics.hpp"

namespace exactune {

struct FamilyTables {
  std::string family;
  int format_version = kHeuristicsFormatVersion;
  std::vector<DeviceHeuristics> devices;  // by slug, then name: the order select() tries them in
  Configuration global_default;
};

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

// `files` grouped into one FamilyTables per family, the families in
// FamilyRegistry order.
std::vector<FamilyTables> tables_by_family(const std::vector<HeuristicsFile>& files);

}  // namespace exactune
