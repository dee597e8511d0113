#include "store/family_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

#include "runtime/device_tables.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"

namespace exactune {

namespace fs = std::filesystem;

FamilyTables family_tables(const Heuristics& h) {
  return FamilyTables{h.family, kFamilyTablesFormatVersion, {h.device}, h.global_default, std::nullopt, {}};
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
      throw input_error(
          fmt::format("{}: {} {}, but {} has {} {}: {}", file.path, key, theirs, first.path, key, ours, why));
    };
    if (h.family != tables.family)
      refuse("family", h.family, tables.family, "one family's tables take its files alone");
    // Files of either heuristics.yaml version read into the same model, and make the same tables.
    if (h.global_default.variant != tables.global_default.variant) {
      refuse("global default", h.global_default.variant, tables.global_default.variant,
             "a family has one global default, for the GPUs that none of its tables knows");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (files[j].heuristics.device.name == h.device.name) {
        throw input_error(
            fmt::format("{}: device '{}' again, after {}: a family's tables hold each GPU once, and "
                        "select() tells GPUs apart by name",
                        file.path, h.device.name, files[j].path));
      }
    }
    tables.devices.push_back(h.device);
  }
  std::stable_sort(tables.devices.begin(), tables.devices.end(),
                   [](const DeviceHeuristics& a, const DeviceHeuristics& b) {
                     return std::tie(a.slug, a.name) < std::tie(b.slug, b.name);
                   });
  for (const HeuristicsFile& file : files) {
    if (std::optional<DefaultsRecord> r =
            device_record_beside(file.path, file.heuristics.family, file.heuristics.device.name)) {
      tables.device_records.push_back(std::move(*r));
    }
  }
  std::sort(tables.device_records.begin(), tables.device_records.end(),
            [](const DefaultsRecord& a, const DefaultsRecord& b) { return a.device < b.device; });
  return tables;
}

std::vector<HeuristicsFile> load_swept_heuristics(const fs::path& reports) {
  std::error_code ec;
  if (!fs::is_directory(reports, ec)) {
    throw input_error(
        fmt::format("{}: no such folder (the reports of exactune sweep: "
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
    throw input_error(
        fmt::format("{}: no <gpu-slug>/<family>/heuristics.yaml under it: nothing to make tables of "
                    "(exactune sweep writes them)",
                    reports.string()));
  }
  std::sort(paths.begin(), paths.end());
  std::vector<HeuristicsFile> files;
  for (const fs::path& path : paths) files.push_back({path.string(), load_heuristics_file(path.string())});
  return files;
}

std::vector<SweptFamily> load_sweeps_beside(const std::vector<HeuristicsFile>& files) {
  std::vector<SweptFamily> swept;
  for (const HeuristicsFile& f : files) {
    const fs::path sweep = fs::path(f.path).parent_path() / "sweep.yaml";
    std::error_code ec;
    if (!fs::is_regular_file(sweep, ec)) continue;
    swept.push_back({sweep.string(), read_sweep_file(sweep), f.heuristics});
  }
  return swept;
}

std::vector<VerifiedSizes> verified_sizes(const FamilyTables& tables) {
  std::vector<VerifiedSizes> verified;
  for (const DeviceHeuristics& d : tables.devices) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<int>> sizes;
    for (const Choice& c : d.choices) {
      if (!sizes.count(c.chosen.variant)) order.push_back(c.chosen.variant);
      sizes[c.chosen.variant].push_back(c.size);
    }
    for (const std::string& variant : order) {
      verified.push_back(
          {variant, compact_sizes(sizes[variant]), fmt::format("exact in the sweep on {}", d.name), d.name});
    }
  }
  const auto add_record = [&](const DefaultsRecord& r) {
    const std::string where = r.device.empty() ? r.target : fmt::format("{} ({})", r.device, r.target);
    for (const VerifiedConfiguration& c : r.configurations) {
      if (c.verified.empty()) continue;
      verified.push_back({c.variant, c.verified, fmt::format("exact on {} ({})", where, r.command), r.device});
    }
  };
  for (const DefaultsRecord& r : tables.device_records) add_record(r);
  if (tables.defaults_record) add_record(*tables.defaults_record);
  return verified;
}

bool is_verified(const std::vector<VerifiedSizes>& verified, std::string_view variant, int size,
                 std::string_view device, bool device_has_own_record) {
  return std::any_of(verified.begin(), verified.end(), [&](const VerifiedSizes& v) {
    return evidence_serves(v.device, device, device_has_own_record) && v.variant == variant &&
           contains_size(v.sizes, size);
  });
}

const DefaultsRecord* own_record(const FamilyTables& tables, std::string_view device_name) {
  const auto it = std::find_if(tables.device_records.begin(), tables.device_records.end(),
                               [&](const DefaultsRecord& r) { return r.device == device_name; });
  return it == tables.device_records.end() ? nullptr : &*it;
}

namespace {

// The record at `path`, or none; refused when it is of another family or reference recipe.
std::optional<DefaultsRecord> record_at(const fs::path& path, const std::string& family_name) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  DefaultsRecord record = load_defaults_file(path.string());
  const KernelFamily& family = FamilyRegistry::find(family_name);
  if (record.family != family_name) {
    throw input_error(
        fmt::format("{}: a record of family {}, in the folder of {}", path.string(), record.family, family_name));
  }
  if (record.reference_recipe != family.reference_recipe()) {
    throw input_error(
        fmt::format("{}: verified against the reference recipe {}, but {} now replicates {}: rerun "
                    "`{}`",
                    path.string(), record.reference_recipe, family.name(), family.reference_recipe(), record.command));
  }
  return record;
}

}  // namespace

std::optional<DefaultsRecord> defaults_record_of(const std::string& family_name, const fs::path& tables_dir) {
  std::optional<DefaultsRecord> record = record_at(tables_dir / defaults_record_path(family_name), family_name);
  if (record && !record->device.empty()) {
    throw input_error(
        fmt::format("{}: made on {}: a GPU's record goes beside its heuristics.yaml "
                    "(<reports>/<gpu-slug>/<family>/), the host's (--cpu) here",
                    (tables_dir / defaults_record_path(family_name)).string(), record->device));
  }
  return record;
}

std::optional<DefaultsRecord> device_record_beside(const fs::path& heuristics_yaml, const std::string& family,
                                                   const std::string& device_name) {
  const fs::path path = heuristics_yaml.parent_path() / "verified_defaults.yaml";
  std::optional<DefaultsRecord> record = record_at(path, family);
  if (record && (record->device.empty() || (!device_name.empty() && record->device != device_name))) {
    throw input_error(
        fmt::format("{}: made on {}, beside the heuristics.yaml of {}: a GPU's record is its own "
                    "evidence alone",
                    path.string(), record->device.empty() ? "the host (--cpu)" : record->device, device_name));
  }
  return record;
}

void read_defaults_record(FamilyTables& tables, const fs::path& tables_dir) {
  tables.defaults_record = defaults_record_of(tables.family, tables_dir);
}

fs::path tables_dir_of(const fs::path& heuristics_yaml) {
  return heuristics_yaml.parent_path().parent_path().parent_path() / "tables";
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
