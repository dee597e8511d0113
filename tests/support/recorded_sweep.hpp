// What the tests of choosing, reporting, tables, shards and the gate share: a
// recorded sweep of the toy family (tests/toy_family) to choose from, the
// tables of three GPUs made from its choices, the same sweep as a sweep.yaml
// the strict reader takes, and the files, shell commands and compilers those
// tests run (those of host_probe.hpp).
#pragma once
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "store/family_tables.hpp"
#include "store/heuristics.hpp"
#include "store/sweep_file.hpp"
#include "support/host_probe.hpp"
#include "support/scratch_directory.hpp"
#include "support/sweep_records.hpp"
#include "toy_family/toy_family.hpp"

namespace recorded {

using namespace exactune;
namespace fs = std::filesystem;

// The variants the recorded sweep uses: t<threads>_v<elements a step>_<result>.
inline constexpr const char* kDefault = "t32_v4_right";            // the toy's global default
inline constexpr const char* kLarge = "t128_v4_right";             // the best at 8192 rows
inline constexpr const char* kWide = "t64_v8_right";               // 8 elements a step: it has a narrowed form
inline constexpr const char* kWideNarrowed = "t64_v4_right";       // the same with 4 elements a step
inline constexpr const char* kIncorrect = "t32_v8_planted_wrong";  // the fastest of all, and not exact
inline constexpr const char* kUntimed = "t256_v4_right";           // exact, never timed

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The toy's variant of that name, with its params, and its records.
inline Variant find_variant(const std::string& name) {
  for (Candidate& c : enumerate_space(exactune_test::toy_family(), 4096)) {
    if (c.variant.name == name) return std::move(c.variant);
  }
  FAIL("no variant " << name);
  return {};
}

inline VariantResult variant(const std::string& name) { return record_of(find_variant(name)); }
inline VariantResult timed(const std::string& name, double median_us, double spread = 0.005) {
  return timed(find_variant(name), median_us, spread);
}
inline VariantResult incorrect(const std::string& name) { return incorrect(find_variant(name)); }
inline VariantResult untimed(const std::string& name) { return untimed(find_variant(name)); }

inline ShapeResult shape(const std::string& name, int rows, int length, std::vector<VariantResult> variants) {
  return shape_result(exactune_test::toy_shape(name, rows, length), std::move(variants));
}

// Length 2240: three buckets (37, 2048, 8192 rows) and a shape with nothing
// timed; the default is within noise of the best at 37 and 2048 rows and 6.7%
// behind at 8192. Length 3072: two buckets that the wide variant wins.
inline SweepResults recorded_sweep() {
  SweepResults r = recorded_header(exactune_test::toy_family());
  r.shapes.push_back(
      shape("edge-37", 37, 2240,
            {timed(kWide, 5.00), timed(kDefault, 5.05), timed(kLarge, 5.5), incorrect(kIncorrect), untimed(kUntimed)}));
  r.shapes.push_back(shape("mid", 2048, 2240,
                           {timed(kDefault, 10.0), timed(kWide, 10.1), timed(kLarge, 11.0), incorrect(kIncorrect)}));
  r.shapes.push_back(shape("untimed-4000", 4000, 2240, {untimed(kDefault), untimed(kWide)}));
  r.shapes.push_back(shape("big", 8192, 2240,
                           {timed(kLarge, 30.0), timed(kDefault, 32.0), timed(kWide, 33.5), incorrect(kIncorrect)}));
  r.shapes.push_back(shape("long-4096", 4096, 3072, {timed(kWide, 20.0), timed(kLarge, 21.0)}));
  r.shapes.push_back(shape("long-4608", 4608, 3072, {timed(kWide, 22.0), timed(kLarge, 23.0)}));
  return r;
}

// The recorded sweep as a sweep.yaml the strict reader takes, for the tests
// that run a command on one: its untimed exact variants are given the cases
// they passed, which a file must state.
inline SweepResults readable_sweep() {
  SweepResults r = recorded_sweep();
  for (ShapeResult& s : r.shapes) {
    for (VariantResult& v : s.variants) {
      if (v.exact && v.cases_total == 0) v.cases_passed = v.cases_total = 9;
    }
  }
  return r;
}

using host_probe::read_text;
using host_probe::run_shell;
using host_probe::write_text;

using TempDir = ScratchDirectory;  // the name these tests know it by

// `results` as <root>/reports/nvidia-h200/toy_double/sweep.yaml, where a sweep leaves it.
inline fs::path write_sweep(const fs::path& root, const SweepResults& results = readable_sweep()) {
  const fs::path folder = root / "reports" / "nvidia-h200" / results.family;
  fs::create_directories(folder);
  write_text(folder / "sweep.yaml", to_sweep_yaml(results));
  return folder / "sweep.yaml";
}

// The message of the exactune::error `action` throws.
template <typename Action>
inline std::string error_of(Action action) {
  try {
    action();
  } catch (const error& e) {
    return e.what();
  }
  return "(no error)";
}

inline Configuration configuration(const std::string& name) {
  const Variant v = find_variant(name);
  return {v.name, v.params};
}

// Three GPUs' tables of the toy, by slug: an A100 (sm_80), the recorded
// sweep's H200 (sm_90, 132 SMs) and an H800 PCIe (sm_90, 114 SMs), the other
// two made by editing the H200's choices, each with configurations of its own.
inline constexpr const char* kA100Choice = "t256_v4_right";
inline constexpr const char* kA100Default = "t512_v8_right";
inline constexpr const char* kA100DefaultNarrowed = "t512_v4_right";
inline constexpr const char* kH800Choice = "t32_v8_right";
inline constexpr const char* kH800Default = "t128_v8_right";

inline DeviceHeuristics edited_device(DeviceHeuristics device, const std::string& name, const std::string& slug,
                                      const std::string& arch, int sm_count, const char* choice,
                                      const char* default_variant) {
  device.name = name;
  device.slug = slug;
  device.arch = arch;
  device.sm_count = sm_count;
  for (Choice& c : device.choices) c.chosen = configuration(choice);
  device.default_configuration = configuration(default_variant);
  return device;
}

inline std::vector<HeuristicsFile> three_gpu_files() {
  const Heuristics h200 = choose_heuristics(recorded_sweep());
  Heuristics h800 = h200, a100 = h200;
  h800.device =
      edited_device(h200.device, "NVIDIA H800 PCIe", "nvidia-h800-pcie", "sm_90", 114, kH800Choice, kH800Default);
  a100.device = edited_device(h200.device, "NVIDIA A100-SXM4-80GB", "nvidia-a100-sxm4-80gb", "sm_80", 108, kA100Choice,
                              kA100Default);
  return {{"reports/nvidia-h200/h.yaml", h200},
          {"reports/nvidia-h800-pcie/h.yaml", h800},
          {"reports/nvidia-a100-sxm4-80gb/h.yaml", a100}};
}

// Compiles `source` with `header` (named `header_name`) beside it as strict
// C++17 with the host compiler, runs it, and returns what it printed.
inline std::string compile_and_run(const fs::path& dir, const std::string& header_name, const std::string& header,
                                   const std::string& source) {
  return host_probe::compile_and_run(dir, {{header_name, header}}, source);
}

}  // namespace recorded
