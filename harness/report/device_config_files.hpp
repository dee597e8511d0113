// The per-device config files of `exactune tables`, in the form serving
// frameworks (vLLM, SGLang) load their tuned kernel configs: per family, size
// and GPU, `<size parameter>=<n>,device_name=<NAME>.json`, a JSON object whose
// every key is a row count and whose value is the launch config. Their loaders
// json.load the file, turn every key into an int and take the key nearest the
// row count, so each file holds enough keys that the nearest one answers the
// table's choice at every row count: 1, each bucket's largest row count and
// the one after it, and the powers of two up to 65536.
// What those files cannot hold (where they came from, the default for sizes
// without a file and its narrowed forms, where each configuration was proven
// bit-exact: elsewhere run the framework's chain) is in
// `device_name=<NAME>.exactune.json` beside them, which no such loader opens.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "store/family_tables.hpp"

namespace exactune {

// "NVIDIA H200" -> "NVIDIA_H200": every character of the name other than
// [A-Za-z0-9._-] becomes '_', so that no name leaves the family's folder.
std::string device_name_in_file(std::string_view device_name);
// "device_name=NVIDIA_H200.exactune.json": the file of what the framework files leave out.
std::string device_file_name(std::string_view device_name);
// "<size>=2240,device_name=NVIDIA_H200.json" (e.g. length=2240): a framework's config file of one size.
std::string framework_config_file_name(std::string_view size_parameter, int size, std::string_view device_name);

struct DeviceConfigFile {
  std::string name;
  std::string text;
};

// Per device of `tables`, in its order: its framework config file of each
// tuned size, then its device_file_name. Throws exactune::input_error when two
// devices' names make the same file name.
std::vector<DeviceConfigFile> device_config_files(const FamilyTables& tables);

}  // namespace exactune
