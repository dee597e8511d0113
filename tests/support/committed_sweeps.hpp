// Which registered families have a committed sweep (a reports/<gpu>/<family>/
// heuristics.yaml under the source tree): those the tables and the runtime
// serve. A family registers before its first sweep on a GPU is committed; it
// has no table until then, and the runtime answers "no table" for it.
#pragma once
#include <filesystem>

#include <exactune/family.hpp>

namespace exactune_test {

inline bool has_committed_sweep(const exactune::KernelFamily& family) {
  namespace fs = std::filesystem;
  const fs::path reports = fs::path(EXACTUNE_SOURCE_DIR) / "reports";
  for (const fs::directory_entry& gpu : fs::directory_iterator(reports)) {
    if (fs::exists(gpu.path() / family.name() / "heuristics.yaml")) return true;
  }
  return false;
}

}  // namespace exactune_test
