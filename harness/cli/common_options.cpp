#include "common_options.hpp"

#include <regex>

#include "blaming_the_input.hpp"
#include "cuda_driver.hpp"
#include "device_info.hpp"
#include "error.hpp"

namespace exactune::cli {

void ShapeOptions::add_to(CLI::App& command) {
  command.add_option("--shapes", shapes_file, "YAML shape set (default: the embedded set, shapes/default.yaml)")
      ->check(CLI::ExistingFile);
}

ShapeSet ShapeOptions::load() const {
  return blaming_the_input([&] { return shapes_file.empty() ? default_shapes() : load_shapes_file(shapes_file); });
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
