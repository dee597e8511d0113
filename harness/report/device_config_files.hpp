// The per-device config files of `exactune tables`:
// <family>/device_name=<NAME>.json, named as serving frameworks (vLLM, SGLang)
// name the files they look a GPU's tuned kernel configs up in. Each holds one
// device of the family's JSON, keyed size -> bucket bound -> configuration,
// and "verified": the sizes at which each configuration it names was proven
// bit-exact (a default serves only those; elsewhere, run the framework's chain).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "store/family_tables.hpp"

namespace exactune {

// "NVIDIA H200" -> "device_name=NVIDIA_H200.json": every character of the name
// other than [A-Za-z0-9._-] becomes '_', so that no name leaves the family's folder.
std::string device_file_name(std::string_view device_name);

struct DeviceConfigFile {
  std::string name;  // device_file_name of the device
  std::string text;
};

// One per device of `tables`, in its order. Throws exactune::input_error when
// two devices' names make the same file name.
std::vector<DeviceConfigFile> device_config_files(const FamilyTables& tables);

}  // namespace exactune
