// The gate's power from gate-mode runs (gate/gate_power_runs.hpp), its record
// gate_power.json (store/gate_power.hpp) and the section summary.md shows
// (report/gate_power_section.hpp): runs of an unchanged build count false
// alarms, runs with a plant count catches, each level beside the slowdown the
// comparison measured.
#include <cmath>
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "gate/gate_power_runs.hpp"
#include "report/gate_power_section.hpp"
#include "store/gate_power.hpp"
#include "support/sampled_timings.hpp"
#include "support/scratch_directory.hpp"
#include "util/text_file.hpp"

using namespace exactune;
using exactune_test::samples_around;

namespace {

// A run of the toy: "fast" `slowdown` slower than 10 us; seed_shift moves the samples' count and order.
SweepResults run_at(double slowdown, int seed_shift = 0) {
  return exactune_test::sampled_run(samples_around(10.0 * (1 + slowdown), 0.02, 31 + seed_shift),
                                    samples_around(4.0, 0.02));
}

}  // namespace

TEST_CASE("gate power counts false alarms and catches per planted level, with the measured slowdown", "[gate][power]") {
  std::vector<GatePowerRun> runs;
  for (int i = 0; i < 4; ++i) runs.push_back({0.0, run_at(0.0, i)});
  for (int i = 0; i < 3; ++i) runs.push_back({0.10, run_at(0.10, i)});
  runs.push_back({0.05, run_at(0.0)});  // a plant that did not take: not caught
  GateOptions options;
  options.regimes = {TimingRegime::rotated};
  const GatePower power = measure_gate_power(run_at(0.0), runs, options);
  CHECK(power.family == "toy_double");
  CHECK(power.gpu == "NVIDIA H200");
  CHECK(power.figures == 1);
  REQUIRE(power.levels.size() == 3);
  CHECK(power.levels[0].planted == 0);
  CHECK(power.levels[0].runs == 4);
  CHECK(power.levels[0].failed == 0);
  CHECK(power.levels[1].planted == 0.05);
  CHECK(power.levels[1].failed == 0);
  CHECK(power.levels[2].planted == 0.10);
  CHECK(power.levels[2].runs == 3);
  CHECK(power.levels[2].failed == 3);
  CHECK(power.levels[2].measured == Approx(0.10).margin(0.005));
  CHECK_THROWS_AS(measure_gate_power(run_at(0.0), {}, options), input_error);

  const std::string section = gate_power_section(power);
  INFO(section);
  CHECK(section.find("| none | 4 | 0 | 0 | +0.0% | 0 failed, at most 5% ambiguous | yes |") != std::string::npos);
  CHECK(section.find("| +5% | 1 | 0 | 0 | +0.0% | caught in at least 80% | no |") != std::string::npos);
  CHECK(section.find("| +10% | 3 | 3 | 0 | +10.") != std::string::npos);
}

TEST_CASE("gate power pools each run's re-measures, and says per figure what the unchanged runs saw", "[gate][power]") {
  SweepResults baseline = run_at(0.0);
  baseline.shapes[0].run_to_run_noise.push_back({TimingRegime::rotated, 0.045, 5, 3});
  GateOptions options;
  options.regimes = {TimingRegime::rotated};
  // Unchanged runs 0.6% apart: one run alone is ambiguous against passes 4.5% apart.
  std::vector<GatePowerRun> runs = {{0.0, run_at(0.003)}, {0.0, run_at(-0.003)}};
  GatePower power = measure_gate_power(baseline, runs, options);
  CHECK(power.levels[0].ambiguous == 2);
  REQUIRE(power.unchanged.size() == 1);
  const GatePowerFigure& figure = power.unchanged[0];
  CHECK(figure.shape == "s");
  CHECK(figure.regime == "rotated");
  CHECK(figure.runs == 2);
  CHECK(figure.ambiguous == 2);
  CHECK(figure.slower == 0);
  CHECK(figure.spread == Approx((std::log(1.003) - std::log(0.997)) / std::sqrt(2.0)).margin(0.001));
  CHECK(figure.half_width > 0.05);

  // Each re-measured twice, as gate mode does: the pooled runs decide.
  for (GatePowerRun& run : runs) run.remeasured = {run_at(0.0, 1), run_at(0.0, 2)};
  power = measure_gate_power(baseline, runs, options);
  CHECK(power.levels[0].ambiguous == 0);
  CHECK(power.levels[0].failed == 0);
  CHECK(power.unchanged[0].half_width < figure.half_width);

  const std::string section = gate_power_section(power);
  INFO(section);
  CHECK(section.find("| shape | regime | runs | slower | ambiguous | spread | half-width | half-width / spread |") !=
        std::string::npos);
  CHECK(section.find("| s | rotated | 2 | 0 | 0 | ") != std::string::npos);
  // A record without figures (before they were kept) shows no such table.
  power.unchanged.clear();
  CHECK(gate_power_section(power).find("half-width") == std::string::npos);
}

TEST_CASE("gate_power.json round-trips and refuses what it cannot trust", "[gate][power]") {
  const ScratchDirectory dir("gate-power");
  GatePower power{"toy_double", "NVIDIA H200", 0.05, 0.95, 14, {{0, 20, 0, 1, 0.001}, {0.05, 20, 17, 2, 0.049}}};
  const auto path = dir.path() / "gate_power.json";
  write_gate_power_file(path, power);
  const GatePower back = read_gate_power_file(path);
  CHECK(gate_power_json(back) == gate_power_json(power));
  CHECK(gate_power_json(power).rfind("{\n  \"generated\": \"by exactune gate-power", 0) == 0);
  CHECK(gate_power_beside(dir.path()).has_value());
  CHECK_FALSE(gate_power_beside(dir.path() / "elsewhere").has_value());

  power.unchanged = {{"sana", "cold", 20, 0, 1, 0.012, 0.03}};
  write_gate_power_file(path, power);
  CHECK(gate_power_json(read_gate_power_file(path)) == gate_power_json(power));
  CHECK(gate_power_json(power).find("\"unchanged_figures\"") != std::string::npos);
  power.unchanged[0].slower = 20;  // more verdicts than runs
  write_gate_power_file(path, power);
  CHECK_THROWS_AS(read_gate_power_file(path), input_error);
  power.unchanged.clear();

  power.levels[1].failed = 21;  // more failures than runs
  write_gate_power_file(path, power);
  CHECK_THROWS_AS(read_gate_power_file(path), input_error);
  write_text_file(path, "{\"family\": 3}");
  CHECK_THROWS_WITH(read_gate_power_file(path), Catch::Contains("not what exactune gate-power writes"));
}
