// summary.md's "Harness speed" section, from the harness_speed.json that
// ci/harness_speed.py writes beside a sweep: every figure it records appears,
// the missing 2-GPU figure says why, and a damaged file is named.
#include <fstream>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "report/harness_speed.hpp"
#include "store/report_inputs.hpp"
#include "support/scratch_directory.hpp"

namespace {

void write(const std::filesystem::path& file, const std::string& text) { std::ofstream(file) << text; }

// The section of the harness_speed.json in `folder`, read as the reports read it.
std::string section_beside(const std::filesystem::path& folder) {
  const exactune::ReportInputs inputs = exactune::report_inputs_beside(folder, "toy", exactune::kDefaultPolicy);
  REQUIRE(inputs.harness_speed.has_value());
  return exactune::harness_speed_section(*inputs.harness_speed);
}

const char* kSpeed =
    R"({"source": "ci/speed.sh", "family": "toy", "gpu": "NVIDIA H200", "measured": "2026-12-01T14:00:00Z",
 "sweeps": [
  {"strategy": "successive_halving", "cache": "cold", "wall_s": 71.5, "exit": 0, "exact": 900, "fully_timed": 60,
   "stages": {"verify": {"steps": 20032, "s": 9.25}, "time": {"steps": 67, "s": 8.0}}},
  {"strategy": "exhaustive", "cache": "warm", "wall_s": 98.25, "exit": 0, "exact": 900, "fully_timed": 900,
   "stages": {"verify": {"steps": 20032, "s": 9.0}, "time": {"steps": 907, "s": 54.0}}}],
 "agreement": [{"pair": "warm", "markdown": "| shape | equal |\n|---|---|\n| s1 | yes |\n\n7 of 7 choices equal"}],
 "gate_mode": {"wall_s": 14.5, "sweep_s": 13.0, "compare_s": 1.5, "gate_exit": 0, "verdict": "gate: passed"},
 "devices": {"gpus": 1, "all_wall_s": 80.0, "all_exit": 0, "speedup": null, "why_not": "one GPU here"}})";

}  // namespace

TEST_CASE("the harness speed section shows every sweep, the agreement, the gate mode and why 2 GPUs were not measured",
          "[harness_speed]") {
  ScratchDirectory dir("harness-speed");
  CHECK_FALSE(exactune::report_inputs_beside(dir.path(), "toy", exactune::kDefaultPolicy).harness_speed.has_value());
  write(dir.path() / "harness_speed.json", kSpeed);
  const std::string section = section_beside(dir.path());
  CHECK(section.find("## Harness speed") != std::string::npos);
  CHECK(section.find("| successive_halving | cold | 71.5 | 9.2 (20032) | 8.0 | - | - | 60 / 900 | 0 |") !=
        std::string::npos);
  CHECK(section.find("| exhaustive | warm | 98.2 | 9.0 (20032) | 54.0 | - | - | 900 / 900 | 0 |") != std::string::npos);
  CHECK(section.find("7 of 7 choices equal") != std::string::npos);
  CHECK(section.find("14.5 s (13.0 s sweep, 1.5 s compare); the gate said: gate: passed") != std::string::npos);
  CHECK(section.find("not measured: one GPU here") != std::string::npos);
}

TEST_CASE("a harness speed record that is not what ci/harness_speed.py writes is refused by name", "[harness_speed]") {
  ScratchDirectory dir("harness-speed-bad");
  write(dir.path() / "harness_speed.json", R"({"source": "ci/speed.sh", "family": "toy"})");
  CHECK_THROWS_AS(section_beside(dir.path()), exactune::input_error);
  try {
    section_beside(dir.path());
  } catch (const exactune::input_error& e) {
    CHECK(std::string(e.what()).find("harness_speed.json: not what ci/harness_speed.py writes") != std::string::npos);
  }
}
