// The CLI as a user meets it: help text, exit codes and one-line errors.
#include <fmt/format.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "backends/gpu/cuda_driver.hpp"
#include "catch.hpp"
#include "support/run_cli.hpp"

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the help (--help) describes the tool and every subcommand") {
  const CliResult r = run_cli("--help");
  CHECK(r.exit_code == 0);
  for (const char* command : {"list", "compile", "verify", "sweep"}) CHECK(contains(r.output, command));
  for (const char* command : {"list", "compile", "verify", "sweep"}) {
    const CliResult sub = run_cli(fmt::format("{} --help", command));
    INFO(command << ":\n" << sub.output);
    CHECK(sub.exit_code == 0);
    CHECK(sub.output.size() > 200);
  }
}

TEST_CASE("no subcommand, an unknown one, or an unknown option: exit 2") {
  CHECK(run_cli("").exit_code == 2);
  CHECK(run_cli("frobnicate").exit_code == 2);
  CHECK(run_cli("list --no-such-option").exit_code == 2);
}

TEST_CASE("bad values are refused with one readable line and exit 2") {
  SECTION("a hidden size that is not a multiple of 4") {
    const CliResult r = run_cli("list --family layer_norm_modulate --size 2242");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "exactune: error: --size 2242: hidden 2242 is not a multiple of 4"));
  }
  SECTION("an unknown family") {
    const CliResult r = run_cli("list --family no_such_family");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "no kernel family named 'no_such_family'"));
    CHECK(contains(r.output, "layer_norm_modulate"));
  }
  SECTION("a malformed architecture") {
    const CliResult r = run_cli("compile --family layer_norm_modulate --arch sm90x");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "sm90x"));
  }
  SECTION("a missing shapes file") {
    const CliResult r = run_cli("compile --family layer_norm_modulate --shapes /no/such/file.yaml");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "/no/such/file.yaml"));
  }
  SECTION("an invalid shapes file names its line") {
    const auto path = std::filesystem::temp_directory_path() / "exactune_cli_bad_shapes.yaml";
    std::ofstream(path) << "shapes:\n  - name: bad\n    model: m\n    batch: 1\n    tokens: 1\n    hidden: 2242\n"
                           "    eps: 1.0e-6\n";
    const CliResult r = run_cli(fmt::format("list --family layer_norm_modulate --shapes '{}'", path.string()));
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, fmt::format("{}:6:", path.string())));
  }
}

TEST_CASE("list prints the space with a reason for each exclusion") {
  const CliResult r = run_cli("list --family layer_norm_modulate --size 2240");
  CHECK(r.exit_code == 0);
  CHECK(contains(r.output, "w4_r2_peeled_v16_reload_fold_early_bf16x2_full"));
  CHECK(contains(r.output, "excluded: "));
  CHECK(contains(r.output, "hidden 2240:"));
}

TEST_CASE("verify needs a GPU or --cpu, and says so when there is none") {
  const CliResult r = run_cli("verify --family layer_norm_modulate --no-table --variants 'w1_r1_*'");
  INFO(r.output);
  if (const auto reason = exactune::why_no_gpu()) {
    CHECK(r.exit_code == 1);
    CHECK(contains(r.output, "--cpu"));
  } else {
    CHECK(r.exit_code == 0);
  }
  const CliResult cpu = run_cli("verify --family layer_norm_modulate --cpu --rows 2 --no-table --variants 'w1_r1_*'");
  INFO(cpu.output);
  CHECK(cpu.exit_code == 0);
  CHECK(contains(cpu.output, "rstd host-approximated"));
}

TEST_CASE("the gate takes the chosen configurations from a heuristics.yaml", "[committed]") {
  namespace fs = std::filesystem;
  const fs::path gpu = fs::path(EXACTUNE_SOURCE_DIR) / "reports" / "nvidia-h200" / "layer_norm_modulate";
  REQUIRE(fs::exists(gpu / "sweep.yaml"));
  const std::string sweep = (gpu / "sweep.yaml").string();
  const CliResult r = run_cli(fmt::format("gate --baseline '{}' --candidate '{}' --heuristics '{}'", sweep, sweep,
                                          (gpu / "heuristics.yaml").string()));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.output, "gate: PASS"));
  CHECK(run_cli(fmt::format("gate --baseline '{}' --candidate '{}' --heuristics /no/such.yaml", sweep, sweep))
            .exit_code == 2);
}
