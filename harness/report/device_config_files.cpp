#include "report/device_config_files.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <set>

#include <exactune/error.hpp>

#include "report/family_json.hpp"
#include "report/heuristics_view.hpp"
#include "runtime/device_tables.hpp"
#include "store/family_tables.hpp"

namespace exactune {

std::string device_name_in_file(std::string_view device_name) {
  std::string name(device_name);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  return name;
}

std::string device_file_name(std::string_view device_name) {
  return fmt::format("device_name={}.exactune.json", device_name_in_file(device_name));
}

std::string framework_config_file_name(std::string_view size_parameter, int size, std::string_view device_name) {
  return fmt::format("{}={},device_name={}.json", size_parameter, size, device_name_in_file(device_name));
}

namespace {

// The keys of one size's framework file: 1, each bucket's largest row count
// and the one after it, and the powers of two to 65536; each maps to the
// config of the bucket that holds it. A row count of a bucket lies between
// two keys of that bucket (its lower edge + 1 and its largest), nearer to
// them than to any key outside it, so the nearest key always answers the
// bucket's config.
GeneratedJson framework_config(const std::vector<const GeneratedJson*>& buckets) {
  std::set<std::int64_t> keys = {1};
  for (const GeneratedJson* bucket : buckets) {
    const GeneratedJson& max_rows = (*bucket)["max_rows"];
    if (!max_rows.is_null()) {
      keys.insert(max_rows.get<std::int64_t>());
      keys.insert(max_rows.get<std::int64_t>() + 1);
    }
  }
  for (std::int64_t p = 1; p <= 65536; p *= 2) keys.insert(p);
  GeneratedJson file = GeneratedJson::object();
  for (std::int64_t rows : keys) {
    for (const GeneratedJson* bucket : buckets) {
      const GeneratedJson& max_rows = (*bucket)["max_rows"];
      if (max_rows.is_null() || rows <= max_rows.get<std::int64_t>()) {
        file[std::to_string(rows)] = (*bucket)["config"];
        break;
      }
    }
  }
  return file;
}

}  // namespace

std::vector<DeviceConfigFile> device_config_files(const FamilyTables& tables) {
  // Made from the family's JSON, so that a configuration reads the same in both.
  const GeneratedJson family = family_json(tables, kTablesGeneratedBy);
  const std::string size = family["select"]["size"];
  std::vector<DeviceConfigFile> files;
  for (std::size_t i = 0; i < tables.devices.size(); ++i) {
    const GeneratedJson& device = family["devices"][i];
    GeneratedJson file = {
        {"generated", kTablesGeneratedBy},
        {"family", tables.family},
        {"device",
         {{"name", device["name"]},
          {"arch", device["arch"]},
          {"cc_major", device["cc_major"]},
          {"cc_minor", device["cc_minor"]},
          {"sm_count", device["sm_count"]}}},
        {"keys",
         fmt::format("{} -> the largest row count of the bucket (\"inf\": every larger count) -> launch config", size)},
        {"default", device["default"]},
        {"default_fallbacks", device["default_fallbacks"]}};
    std::set<std::string> named = {device["default"]["variant"]};
    for (const GeneratedJson& f : device["default_fallbacks"]) named.insert(f["config"]["variant"].get<std::string>());
    for (const GeneratedJson& bucket : device["table"]) {
      const GeneratedJson& max_rows = bucket["max_rows"];
      file[bucket[size].dump()][max_rows.is_null() ? "inf" : max_rows.dump()] = bucket["config"];
      named.insert(bucket["config"]["variant"].get<std::string>());
      for (const GeneratedJson& f : bucket["fallbacks"]) named.insert(f["config"]["variant"].get<std::string>());
    }
    // Where each configuration of the file was proven for this GPU: nowhere else
    // may it serve. Evidence for another GPU does not serve this one, nor the
    // host's record a GPU with a record of its own (store/family_tables.hpp).
    GeneratedJson verified = GeneratedJson::array();
    for (const GeneratedJson& range : family["verified"]) {
      const bool applies = evidence_serves(range["device"].get<std::string>(), device["name"].get<std::string>(),
                                           device["own_record"].get<bool>());
      if (applies && named.count(range["variant"].get<std::string>())) verified.push_back(range);
    }
    file["verified"] = verified;
    const std::string name = device_file_name(tables.devices[i].name);
    for (std::size_t j = 0; j < i; ++j) {
      if (device_file_name(tables.devices[j].name) == name) {
        throw input_error(
            fmt::format("family {}: devices '{}' and '{}' both make the file name {}; each GPU needs "
                        "one of its own",
                        tables.family, tables.devices[j].name, tables.devices[i].name, name));
      }
    }
    // The table's buckets by size, in order (by max_rows ascending, unbounded last).
    std::map<int, std::vector<const GeneratedJson*>> by_size;
    for (const GeneratedJson& bucket : device["table"]) by_size[bucket[size].get<int>()].push_back(&bucket);
    for (const auto& [n, buckets] : by_size) {
      files.push_back(
          {framework_config_file_name(size, n, tables.devices[i].name), framework_config(buckets).dump(2) + "\n"});
    }
    files.push_back({name, file.dump(2) + "\n"});
  }
  return files;
}

}  // namespace exactune
