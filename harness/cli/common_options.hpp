// Options several subcommands share, and how they turn into pipeline inputs.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "compile/compile_cache.hpp"
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

namespace exactune::cli {

// --family: which registered kernel family a command works on.
struct FamilyOption {
  std::string name;  // empty: the default family (FamilyRegistry::default_family)
  void add_to(CLI::App& command);
  const KernelFamily& family() const;
  // For commands that read a file naming its family: fails when --family names another.
  void check_matches(const std::string& family_in_file, const std::string& file) const;
};

struct ShapeOptions {
  FamilyOption family;
  std::string shapes_file;  // empty: the family's embedded default set
  void add_to(CLI::App& command);
  ShapeSet load() const;
};

struct CompileCliOptions {
  std::string cache_dir;  // empty: CompileCache::default_directory()
  int jobs = 0;
  std::string variant_glob = "*";
  void add_to(CLI::App& command);
  CompileCache cache() const;
};

// The GPU targets to compile for: the --arch values, else the local GPU's
// architecture, else sm_90 (the H200) when there is no GPU.
std::vector<std::string> resolve_targets(const std::vector<std::string>& arch_option);

}  // namespace exactune::cli
