// The options several subcommands share, and the checks that turn a bad value
// into one line naming the option and its rule.
#include "cli/common_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <regex>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/space.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/device_info.hpp"
#include "cli/blaming_the_input.hpp"
#include "compile/compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "shapes/shape_file.hpp"
#include "space/compile_plan.hpp"
#include "util/name_glob.hpp"

namespace exactune::cli {

namespace {

std::string family_names() {
  std::string names;
  for (const KernelFamily* f : FamilyRegistry::all()) names += (names.empty() ? "" : ", ") + f->name();
  return names;
}

}  // namespace

void FamilyOption::add_to(CLI::App& command) {
  command.add_option(
      "--family", name,
      fmt::format("kernel family (default: {}; known: {})", FamilyRegistry::default_family().name(), family_names()));
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
      ->check(nonempty_path())
      ->check(CLI::ExistingFile);
}

ShapeSet ShapeOptions::load() const {
  const KernelFamily& f = family.family();
  return blaming_the_input([&] { return shapes_file.empty() ? default_shapes(f) : load_shapes_file(f, shapes_file); });
}

void add_cache_and_jobs_options(CLI::App& command, std::string& cache_dir, int& jobs) {
  command
      .add_option("--cache-dir", cache_dir,
                  "compile cache (default: $EXACTUNE_CACHE_DIR, else $XDG_CACHE_HOME/exactune, else ~/.cache/exactune)")
      ->check(nonempty_path());
  command.add_option("-j,--jobs", jobs, "parallel compiles (default: one per hardware thread)")
      ->check(whole_number_at_least(0));
}

void CompileCliOptions::add_to(CLI::App& command) {
  add_cache_and_jobs_options(command, cache_dir, jobs);
  command.add_option("--variants", variant_glob, "only variants whose name matches this glob, e.g. 'w4_*_v16_*'")
      ->capture_default_str();
}

CompileCache writable_cache(const std::string& directory) {
  if (!directory.empty()) check_output_folder("--cache-dir", directory);
  const CompileCache cache(directory.empty() ? CompileCache::default_directory() : std::filesystem::path(directory));
  cache.require_writable();
  return cache;
}

CompileCache CompileCliOptions::cache() const { return writable_cache(cache_dir); }

void CompileCliOptions::require_variants_at(const KernelFamily& family, const std::vector<int>& sizes) const {
  for (int size : sizes) {
    const std::vector<Candidate> space = enumerate_space(family, size);
    const bool any = std::any_of(space.begin(), space.end(), [&](const Candidate& c) {
      return c.valid() && name_matches(c.variant.name, variant_glob);
    });
    if (!any) {
      throw input_error(fmt::format("--variants {} matches no valid variant of {} at {} {}", variant_glob,
                                    family.name(), family.size_parameter(), size));
    }
  }
}

std::vector<std::string> resolve_targets(const std::vector<std::string>& arch_option) {
  static const std::regex arch_pattern("sm_([0-9]{2,3})[a-z]?");
  for (const std::string& arch : arch_option) {
    std::smatch match;
    if (!std::regex_match(arch, match, arch_pattern)) {
      throw input_error("--arch " + arch + ": expected a GPU architecture such as sm_80, sm_90 or sm_100");
    }
    // Checked here, once: NVRTC would refuse it again for every kernel.
    const std::vector<int> supported = nvrtc_supported_archs();
    if (std::find(supported.begin(), supported.end(), std::stoi(match[1].str())) == supported.end()) {
      std::vector<std::string> names;
      for (int number : supported) names.push_back(fmt::format("sm_{}", number));
      throw input_error(fmt::format("--arch {}: NVRTC {} cannot compile for it; it compiles for {}", arch,
                                    nvrtc_version(), fmt::join(names, ", ")));
    }
  }
  if (!arch_option.empty()) return arch_option;
  if (!why_no_gpu()) return {describe_gpu(0).arch()};
  return {"sm_90"};
}

void check_output_folder(std::string_view option, const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status)) {
    throw input_error(fmt::format("{} {}: is a file, not a folder", option, path));
  }
}

void check_output_file(std::string_view option, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec) || (!path.empty() && path.back() == '/')) {
    throw input_error(fmt::format("{} {}: is a folder, not a file", option, path));
  }
}

CLI::Validator whole_number_from(long long minimum, long long maximum) {
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        long long value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, failure] = std::from_chars(text.data(), end, value);
        if (failure != std::errc() || stop != end || value < minimum) {
          return fmt::format("must be a whole number of at least {}, not '{}'", minimum, text);
        }
        if (value > maximum) return fmt::format("{} is too large: at most {}", text, maximum);
        return {};
      },
      maximum == INT_MAX ? fmt::format("INT>={}", minimum) : fmt::format("INT in [{}, {}]", minimum, maximum));
}

CLI::Validator whole_number_at_least(long long minimum) { return whole_number_from(minimum, INT_MAX); }

CLI::Validator nonempty_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string { return text.empty() ? "must name a file or folder, not ''" : ""; },
      "PATH");
}

CLI::Validator finite_number_from(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, failure] = std::from_chars(text.data(), end, value);
        if (failure != std::errc() || stop != end || !std::isfinite(value) || value < low || value > high) {
          return fmt::format("must be a finite number from {} to {}, not '{}'", low, high, text);
        }
        return {};
      },
      fmt::format("NUMBER in [{}, {}]", low, high));
}

}  // namespace exactune::cli
