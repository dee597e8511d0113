#include "cli/common_options.hpp"

#include <regex>

#include "cli/blaming_the_input.hpp"
#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/device_info.hpp"
#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <fmt/format.h>

namespace exactune::cli {

namespace {

std::string family_names() {
  std::string names;
  for (const KernelFamily* f : FamilyRegistry::all()) names += (names.empty() ? "" : ", ") + f->name();
  return names;
}

}  // namespace

void FamilyOption::add_to(CLI::App& command) {
  command.add_option("--family", name,
                     fmt::format("kernel family (default: {}; known: {})", FamilyRegistry::default_family().name(),
                                 family_names()));
}

const KernelFamily& FamilyOption::family() const {
  return name.empty() ? FamilyRegistry::default_family() : FamilyRegistry::find(name);
}

void FamilyOption::check_matches(const std::string& family_in_file, const std::string& file) const {
  if (!name.empty() && name != family_in_file) {
    throw input_error(fmt::format("--family {}: {} holds results of family {}", name, file, family_in_file));
  }
}

void ShapeOptions::add_to(CLI::App& command) {
  family.add_to(command);
  command.add_option("--shapes", shapes_file, "YAML shape set of the family (default: its embedded set)")
      ->check(CLI::ExistingFile);
}

ShapeSet ShapeOptions::load() const {
  const KernelFamily& f = family.family();
  return blaming_the_input(
      [&] { return shapes_file.empty() ? default_shapes(f) : load_shapes_file(f, shapes_file); });
}

void CompileCliOptions::add_to(CLI::App& command) {
  command.add_option("--cache-dir", cache_dir,
                     "compile cache (default: $EXACTUNE_CACHE_DIR, else $XDG_CACHE_HOME/exactune, else ~/.cache/exactune)");
  command.add_option("-j,--jobs", jobs, "parallel compiles (default: one per hardware thread)")
      ->check(CLI::NonNegativeNumber);
  command.add_option("--variants", variant_glob, "only variants whose name matches this glob, e.g. 'w4_*_v16_*'")
      ->capture_default_str();
}

CompileCache CompileCliOptions::cache() const {
  return CompileCache(cache_dir.empty() ? CompileCache::default_directory() : std::filesystem::path(cache_dir));
}

std::vector<std::string> resolve_targets(const std::vector<std::string>& arch_option) {
  static const std::regex arch_pattern("sm_[0-9]{2,3}[a-z]?");
  for (const std::string& arch : arch_option) {
    if (!std::regex_match(arch, arch_pattern)) {
      throw input_error("--arch " + arch + ": expected a GPU architecture such as sm_80, sm_90 or sm_100");
    }
  }
  if (!arch_option.empty()) return arch_option;
  if (!why_no_gpu()) return {describe_gpu(0).arch()};
  return {"sm_90"};
}

}  // namespace exactune::cli
