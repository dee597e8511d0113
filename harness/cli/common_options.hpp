// Options several subcommands share, and how they turn into pipeline inputs.
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "compile/compile_cache.hpp"

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

// The compile cache at `directory` (empty: CompileCache::default_directory()),
// for a command that compiles: a folder it cannot create or write is refused
// here, before any work, with the system's reason (exactune::input_error).
CompileCache writable_cache(const std::string& directory);

// --cache-dir and -j/--jobs, for every command that compiles.
void add_cache_and_jobs_options(CLI::App& command, std::string& cache_dir, int& jobs);

struct CompileCliOptions {
  std::string cache_dir;  // empty: CompileCache::default_directory()
  int jobs = 0;
  std::string variant_glob = "*";
  void add_to(CLI::App& command);
  CompileCache cache() const;
  // Throws exactune::input_error "--variants GLOB matches no valid variant of
  // <family> at <size parameter> N" for the first size at which the glob
  // selects nothing to run: a run that silently skips a size proves nothing there.
  void require_variants_at(const KernelFamily& family, const std::vector<int>& sizes) const;
};

// The GPU targets to compile for: the --arch values, else the local GPU's
// architecture, else sm_90 (the H200) when there is no GPU. Throws
// exactune::input_error, once for all, for an --arch that is malformed or that
// this NVRTC cannot compile for.
std::vector<std::string> resolve_targets(const std::vector<std::string>& arch_option);

// Checked before a run's work, so that a path that cannot take its output costs none.
// For an option naming a folder to write to (--out DIR): throws
// exactune::input_error "<option> <path>: is a file, not a folder" when it is a file.
void check_output_folder(std::string_view option, const std::string& path);
// For an option naming a file to write (--junit FILE): throws
// exactune::input_error "<option> <path>: is a folder, not a file" when it is a folder.
void check_output_file(std::string_view option, const std::string& path);

// Option checks that state the rule in words ("--rows: must be a whole number
// of at least 1, not '0'"), where CLI11's own name a range to 1.8e308.
CLI::Validator whole_number_at_least(long long minimum);
CLI::Validator whole_number_from(long long minimum, long long maximum);
// For every option naming a file or folder: an empty value names none, and is
// refused rather than taken for the option's default ("--out: must name a
// file or folder, not ''").
CLI::Validator nonempty_path();
CLI::Validator finite_number_from(double low, double high);

}  // namespace exactune::cli
