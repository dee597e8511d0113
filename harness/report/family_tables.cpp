#include "report/family_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string_view>
#include <tuple>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

namespace exactune {

namespace fs = std::filesystem;

FamilyTables family_tables(const Heuristics& h) {
  return FamilyTables{h.family, h.format_version, {h.device}, h.global_default};
}

FamilyTables family_tables(const std::vector<HeuristicsFile>& files) {
  if (files.empty()) throw input_error("no heuristics.yaml to make a family's tables from");
  const HeuristicsFile& first = files.front();
  FamilyTables tables = family_tables(first.heuristics);
  for (std::size_t i = 1; i < files.size(); ++i) {
    const HeuristicsFile& file = files[i];
    const Heuristics& h = file.heuristics;
    // Each file is compared with the first, which sets the family's tables.
    const auto refuse = [&](std::string_view key, const auto& theirs, const auto& ours, std::string_view why) {
      throw input_error(fmt::format("{}: {} {}, but {} has {} {}: {}", file.path, key, theirs, first.path, key, ours, why));
    };
    if (h.family != tables.family) refuse("family", h.family, tables.family, "one family's tables take its files alone");
    if (h.format_version != tables.format_version) {
      refuse("format_version", h.format_version, tables.format_version, "one family's tables have one format");
    }
    if (h.global_default.variant != tables.global_default.variant) {
      refuse("global default", h.global_default.variant, tables.global_default.variant,
             "a family has one global default, for the GPUs that none of its tables knows");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (files[j].heuristics.device.name == h.device.name) {
        throw input_error(fmt::format("{}: device '{}' again, after {}: a family's tables hold each GPU once, and "
                                      "select() tells GPUs apart by name",
                                      file.path, h.device.name, files[j].path));
      }
    }
    tables.devices.push_back(h.device);
  }
  std::stable_sort(tables.devices.begin(), tables.devices.end(), [](const DeviceHeuristics& a, const DeviceHeuristics& b) {
    return std::tie(a.slug, a.name) < std::tie(b.slug, b.name);
  });
  return tables;
}

std::vector<HeuristicsFile> load_swept_heuristics(const fs::path& reports) {
  std::error_code ec;
  if (!fs::is_directory(reports, ec)) {
    throw input_error(fmt::format("{}: no such folder (the reports of exactune sweep: "
                                  "<reports>/<gpu-slug>/<family>/heuristics.yaml)",
                                  reports.string()));
  }
  // Error codes rather than exceptions: a folder that cannot be listed is skipped like one without a yaml.
  const auto subfolders = [](const fs::path& folder) {
    std::vector<fs::path> found;
    std::error_code listing;
    for (fs::directory_iterator it(folder, listing), end; !listing && it != end; it.increment(listing)) {
      std::error_code ignored;
      if (it->is_directory(ignored)) found.push_back(it->path());
    }
    return found;
  };
  std::vector<fs::path> paths;
  for (const fs::path& gpu : subfolders(reports)) {
    for (const fs::path& family : subfolders(gpu)) {
      if (fs::is_regular_file(family / "heuristics.yaml", ec)) paths.push_back(family / "heuristics.yaml");
    }
  }
  if (paths.empty()) {
    throw input_error(fmt::format("{}: no <gpu-slug>/<family>/heuristics.yaml under it: nothing to make tables of "
                                  "(exactune sweep writes them)",
                                  reports.string()));
  }
  std::sort(paths.begin(), paths.end());
  std::vector<HeuristicsFile> files;
  for (const fs::path& path : paths) files.push_back({path.string(), load_heuristics_file(path.string())});
  return files;
}

std::vector<FamilyTables> tables_by_family(const std::vector<HeuristicsFile>& files) {
  for (const HeuristicsFile& file : files) FamilyRegistry::find(file.heuristics.family);  // an unknown one throws
  std::vector<FamilyTables> tables;
  for (const KernelFamily* family : FamilyRegistry::all()) {
    std::vector<HeuristicsFile> of_family;
    std::copy_if(files.begin(), files.end(), std::back_inserter(of_family),
                 [&](const HeuristicsFile& f) { return f.heuristics.family == family->name(); });
    if (!of_family.empty()) tables.push_back(family_tables(of_family));
  }
  return tables;
}

}  // namespace exactune
