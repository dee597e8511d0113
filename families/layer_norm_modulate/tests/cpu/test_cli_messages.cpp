// What the CLI says to bad input: one line that names the option or the file
// and the rule, exit 2, never "internal error"; and the gate, which must fail
// (never pass within noise) a chosen configuration whose time is no number.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "gate/gate.hpp"
#include "heuristics_fixture.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"
#include "support/run_cli.hpp"
#include "sweep_file_fixture.hpp"

using namespace exactune;
using namespace heuristics_fixture;
using namespace sweep_file_fixture;
namespace fs = std::filesystem;

namespace {

std::size_t lines_of(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Two shapes, at hidden 2240 and at 2244 (where no variant loads 16 bytes).
fs::path two_size_shapes(const TempDir& dir) {
  const fs::path path = dir.path() / "shapes.yaml";
  write_text(path,
             "shapes:\n"
             "  - {name: a, model: m, batch: 1, tokens: 8, hidden: 2240, eps: 1.0e-6}\n"
             "  - {name: b, model: m, batch: 1, tokens: 8, hidden: 2244, eps: 1.0e-6}\n");
  return path;
}

// The recorded sweep's chosen configuration of "sana" (its fastest exact, rotated).
VariantResult& sana_chosen(SweepResults& r) {
  REQUIRE(r.shapes[1].shape.name == "sana");
  REQUIRE(r.shapes[1].variants[0].variant == full(kAten));
  return r.shapes[1].variants[0];
}

}  // namespace

TEST_CASE("a --variants glob that selects nothing at a size of the set exits 2 naming the glob, family and size",
          "[cli_messages]") {
  const TempDir dir("cli-variants");
  const fs::path shapes = two_size_shapes(dir);
  const CliResult r = run_cli(fmt::format("compile --shapes '{}' --variants '*_v16_*' --no-table", shapes.string()));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output ==
        "exactune: error: --variants *_v16_* matches no valid variant of layer_norm_modulate at hidden "
        "2244\n");
  CHECK(run_cli(fmt::format("compile --shapes '{}' --variants 'nothing*' --no-table", shapes.string())).output ==
        "exactune: error: --variants nothing* matches no valid variant of layer_norm_modulate at hidden 2240\n");
}

TEST_CASE("an --arch NVRTC cannot compile for is refused once, in one line, before any compile", "[cli_messages]") {
  const CliResult r = run_cli("compile --arch sm_90,sm_12 --variants 'w1_r1_*' --no-table");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(lines_of(r.output) == 1);
  CHECK(contains(r.output, "exactune: error: --arch sm_12: NVRTC "));
  CHECK(contains(r.output, "cannot compile for it; it compiles for "));
  CHECK(contains(r.output, "sm_90"));
}

TEST_CASE("an --out naming a file says so, in the user's words, for every command that writes a folder",
          "[cli_messages]") {
  const TempDir dir("cli-out-file");
  const fs::path file = dir.path() / "a-file";
  write_text(file, "mine\n");
  const fs::path sweep = dir.path() / "sweep.yaml";
  write_text(sweep, to_sweep_yaml(readable_sweep()));
  const fs::path yaml = dir.path() / "heuristics.yaml";
  write_text(yaml, to_heuristics_yaml(choose_heuristics(recorded_sweep())));
  for (const std::string& command : {fmt::format("report --from '{}'", sweep.string()),
                                     fmt::format("emit-header --from '{}'", yaml.string()), std::string("tables")}) {
    INFO(command);
    const CliResult r = run_cli(fmt::format("{} --out '{}'", command, file.string()));
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output == fmt::format("exactune: error: --out {}: is a file, not a folder\n", file.string()));
  }
  CHECK(read_text(file) == "mine\n");
}

TEST_CASE("a size or count out of range states its rule, not a range to 1.8e308", "[cli_messages]") {
  SECTION("--size 0: the family's rule for its size parameter") {
    const CliResult r = run_cli("list --size 0");
    CHECK(r.exit_code == 2);
    CHECK(r.output == "exactune: error: --size 0: hidden 0 is out of range (must be 1..8192)\n");
  }
  SECTION("--rows 0 and --jobs -1") {
    const CliResult rows = run_cli("verify --cpu --rows 0");
    CHECK(rows.exit_code == 2);
    CHECK(contains(rows.output, "--rows: must be a whole number of at least 1, not '0'"));
    const CliResult jobs = run_cli("compile --jobs -1");
    CHECK(jobs.exit_code == 2);
    CHECK(contains(jobs.output, "--jobs: must be a whole number of at least 0, not '-1'"));
    CHECK_FALSE(contains(rows.output + jobs.output, "1.79"));
  }
}

TEST_CASE("gate --threshold refuses NaN, infinity and values beyond 0..1", "[cli_messages][gate]") {
  for (const char* value : {"nan", "inf", "-0.1", "1.5"}) {
    INFO(value);
    const CliResult r = run_cli(fmt::format("gate --baseline a.yaml --candidate b.yaml --threshold {}", value));
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, fmt::format("--threshold: must be a finite number from 0 to 1, not '{}'", value)));
  }
  // And the gate itself, for callers other than the CLI: a NaN threshold would pass every slowdown under it.
  GateOptions options;
  options.threshold = std::nan("");
  CHECK_THROWS_AS(compare_sweeps(recorded_sweep(), recorded_sweep(), options), input_error);
}

TEST_CASE("the gate fails a candidate file whose chosen configuration's median is .nan", "[cli_messages][gate]") {
  const TempDir dir("cli-gate-nan");
  const fs::path baseline = dir.path() / "baseline.yaml";
  const fs::path candidate = dir.path() / "candidate.yaml";
  write_text(baseline, to_sweep_yaml(readable_sweep()));
  SweepResults nan = readable_sweep();
  sana_chosen(nan).rotated->median_us = std::nan("");
  write_text(candidate, to_sweep_yaml(nan));
  REQUIRE(contains(read_text(candidate), ".nan"));
  const CliResult r =
      run_cli(fmt::format("gate --baseline '{}' --candidate '{}'", baseline.string(), candidate.string()));
  INFO(r.output);
  // The reader may refuse it (exit 2, at its line) or the gate fail it (exit 1); it never passes.
  CHECK((r.exit_code == 1 || r.exit_code == 2));
  CHECK_FALSE(contains(r.output, "gate: PASS"));
  CHECK_FALSE(contains(r.output, "internal error"));
  if (r.exit_code == 2) CHECK(contains(r.output, candidate.string() + ":"));
}

TEST_CASE("the gate fails a chosen configuration whose min or max is NaN: its noise would let any slowdown pass",
          "[cli_messages][gate]") {
  for (const bool in_baseline : {true, false}) {
    INFO((in_baseline ? "baseline" : "candidate"));
    SweepResults baseline = recorded_sweep(), candidate = recorded_sweep();
    sana_chosen(candidate).rotated->median_us *= 1.5;  // far slower
    sana_chosen(in_baseline ? baseline : candidate).rotated->max_us = std::nan("");
    const GateReport report = compare_sweeps(baseline, candidate, {});
    CHECK_FALSE(report.passed());
    bool named = false;
    for (const GateFinding& f : report.findings) {
      named = named || (f.shape == "sana" && f.change == GateChange::chosen_not_timed &&
                        contains(f.message, "has no valid time"));
    }
    CHECK(named);
  }
}

TEST_CASE("bad input ends in one located line and exit 2, never in \"internal error\"", "[cli_messages]") {
  const TempDir dir("cli-no-internal");
  const fs::path file = dir.path() / "a-file";
  write_text(file, "x\n");
  const fs::path sweep = dir.path() / "sweep.yaml";
  write_text(sweep, to_sweep_yaml(readable_sweep()));
  const std::string folder = dir.path().string();
  const std::vector<std::string> commands = {
      fmt::format("report --from '{}'", folder),
      fmt::format("report --from '{}' --policy fastest", sweep.string()),
      fmt::format("report --from '{}' --out '{}/sub'", sweep.string(), file.string()),
      fmt::format("gate --baseline '{0}' --candidate '{0}' --junit '{1}'", sweep.string(), folder),
      fmt::format("compile --cache-dir '{}' --variants 'w1_r1_*' --no-table", file.string()),
      fmt::format("compile --save-binaries '{}' --variants 'w1_r1_*' --no-table", file.string()),
      fmt::format("tables --reports '{}'", file.string()),
      fmt::format("verify-defaults --cpu --out '{}'", folder),
  };
  for (const std::string& command : commands) {
    const CliResult r = run_cli(command);
    INFO(command << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "exactune: error: "));
    CHECK_FALSE(contains(r.output, "internal error"));
    CHECK_FALSE(contains(r.output, ".tmp"));
  }
}
