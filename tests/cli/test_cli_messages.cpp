// What the CLI says to bad input: one line that names the option or the file
// and the rule, exit 2, never "internal error"; and the gate, which must fail
// (never pass within noise) a chosen configuration whose time is no number.
// The commands run on the CLI's default family, the files are a small sweep
// of it (support/cli_family.hpp); what the CLI says of a family's own
// parameters is that family's test (families/<name>/tests/cpu).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "gate/gate.hpp"
#include "store/heuristics_file.hpp"
#include "store/sweep_file.hpp"
#include "support/cli_family.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_directory.hpp"

using namespace exactune;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::size_t lines_of(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

fs::path write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The sweep's chosen configuration: its fastest exact variant, rotated.
VariantResult& chosen(SweepResults& r) { return r.shapes.at(0).variants.at(0); }

}  // namespace

TEST_CASE("an --arch NVRTC cannot compile for is refused once, in one line, before any compile", "[cli_messages]") {
  const CliResult r =
      run_cli(fmt::format("compile --arch sm_90,sm_12 --variants '{}' --no-table", exactune_test::cli_variant()));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(lines_of(r.output) == 1);
  CHECK(contains(r.output, "exactune: error: --arch sm_12: NVRTC "));
  CHECK(contains(r.output, "cannot compile for it; it compiles for "));
  CHECK(contains(r.output, "sm_90"));
}

TEST_CASE("an --out naming a file says so, in the user's words, for every command that writes a folder",
          "[cli_messages]") {
  const ScratchDirectory dir("cli-out-file");
  const fs::path file = write_text(dir.path() / "a-file", "mine\n");
  const fs::path sweep = write_text(dir.path() / "sweep.yaml", to_sweep_yaml(exactune_test::cli_sweep()));
  const fs::path yaml =
      write_text(dir.path() / "heuristics.yaml", to_heuristics_yaml(choose_heuristics(exactune_test::cli_sweep())));
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

TEST_CASE("a count out of range states its rule, not a range to 1.8e308", "[cli_messages]") {
  const CliResult rows = run_cli("verify --cpu --rows 0");
  CHECK(rows.exit_code == 2);
  CHECK(contains(rows.output, "--rows: must be a whole number of at least 1, not '0'"));
  const CliResult jobs = run_cli("compile --jobs -1");
  CHECK(jobs.exit_code == 2);
  CHECK(contains(jobs.output, "--jobs: must be a whole number of at least 0, not '-1'"));
  CHECK_FALSE(contains(rows.output + jobs.output, "1.79"));
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
  CHECK_THROWS_AS(compare_sweeps(exactune_test::cli_sweep(), exactune_test::cli_sweep(), options), input_error);
}

TEST_CASE("the gate fails a candidate file whose chosen configuration's median is .nan", "[cli_messages][gate]") {
  const ScratchDirectory dir("cli-gate-nan");
  const fs::path baseline = write_text(dir.path() / "baseline.yaml", to_sweep_yaml(exactune_test::cli_sweep()));
  SweepResults nan = exactune_test::cli_sweep();
  chosen(nan).rotated->median_us = std::nan("");
  const fs::path candidate = write_text(dir.path() / "candidate.yaml", to_sweep_yaml(nan));
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
    SweepResults baseline = exactune_test::cli_sweep(), candidate = exactune_test::cli_sweep();
    const std::string shape = baseline.shapes.at(0).shape.name;
    chosen(candidate).rotated->median_us *= 1.5;  // far slower
    chosen(in_baseline ? baseline : candidate).rotated->max_us = std::nan("");
    const GateReport report = compare_sweeps(baseline, candidate, {});
    CHECK_FALSE(report.passed());
    bool named = false;
    for (const GateFinding& f : report.findings) {
      named = named || (f.shape == shape && f.change == GateChange::chosen_not_timed &&
                        contains(f.message, "has no valid time"));
    }
    CHECK(named);
  }
}

TEST_CASE("verify-defaults takes --gpu-rows on a GPU only, a whole number of rows", "[cli_messages]") {
  const CliResult with_cpu = run_cli("verify-defaults --cpu --gpu-rows 66");
  INFO(with_cpu.output);
  CHECK(with_cpu.exit_code == 2);
  CHECK(contains(with_cpu.output, "--cpu excludes --gpu-rows"));
  const CliResult none = run_cli("verify-defaults --gpu-rows 0");
  INFO(none.output);
  CHECK(none.exit_code == 2);
  CHECK(contains(none.output, "--gpu-rows: must be a whole number of at least 1, not '0'"));
}

TEST_CASE("bad input ends in one located line and exit 2, never in \"internal error\"", "[cli_messages]") {
  const ScratchDirectory dir("cli-no-internal");
  const fs::path file = write_text(dir.path() / "a-file", "x\n");
  const fs::path sweep = write_text(dir.path() / "sweep.yaml", to_sweep_yaml(exactune_test::cli_sweep()));
  const std::string folder = dir.path().string();
  const std::string variant = exactune_test::cli_variant();
  const std::vector<std::string> commands = {
      fmt::format("report --from '{}'", folder),
      fmt::format("report --from '{}' --policy fastest", sweep.string()),
      fmt::format("report --from '{}' --out '{}/sub'", sweep.string(), file.string()),
      fmt::format("gate --baseline '{0}' --candidate '{0}' --junit '{1}'", sweep.string(), folder),
      fmt::format("compile --cache-dir '{}' --variants '{}' --no-table", file.string(), variant),
      fmt::format("compile --save-binaries '{}' --variants '{}' --no-table", file.string(), variant),
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
