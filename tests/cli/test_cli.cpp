// The CLI as a user meets it: help text, exit codes and one-line errors, the
// space as `list` prints it, verify's need of a GPU or --cpu, and the gate
// reading the chosen configurations of a committed report. The commands run
// on the CLI's default family (support/cli_family.hpp); what the CLI says of
// a family's own parameters is that family's test (families/<name>/tests/cpu).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <exactune/space.hpp>

#include "backends/gpu/cuda_driver.hpp"
#include "catch.hpp"
#include "shapes/shape_file.hpp"
#include "support/cli_family.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_directory.hpp"
#include "util/text_file.hpp"

namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

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
  SECTION("an unknown family, with the names of the known ones") {
    const CliResult r = run_cli("list --family no_such_family");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "no kernel family named 'no_such_family'"));
    CHECK(contains(r.output, exactune_test::cli_family().name()));
  }
  SECTION("a malformed architecture") {
    const CliResult r = run_cli("compile --arch sm90x");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "sm90x"));
  }
  SECTION("a missing shapes file") {
    const CliResult r = run_cli("compile --shapes /no/such/file.yaml");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, "/no/such/file.yaml"));
  }
}

TEST_CASE("list prints the space with a reason for each exclusion") {
  const exactune::KernelFamily& family = exactune_test::cli_family();
  const int size = exactune::default_shapes(family).sizes().front();
  const CliResult r = run_cli(fmt::format("list --size {}", size));
  INFO(r.output.substr(0, 2000));
  CHECK(r.exit_code == 0);
  const std::vector<exactune::Candidate> space = exactune::enumerate_space(family, size);
  const std::size_t valid = static_cast<std::size_t>(
      std::count_if(space.begin(), space.end(), [](const exactune::Candidate& c) { return c.valid(); }));
  REQUIRE(valid > 0);
  REQUIRE(valid < space.size());
  CHECK(contains(r.output, fmt::format("{} {}: {} valid, {} excluded of {} combinations", family.size_parameter(), size,
                                       valid, space.size() - valid, space.size())));
  // A row a combination, in the space's order: its name, then "valid" or "excluded: " and the family's reason.
  const std::vector<std::string> lines = lines_of(r.output);
  auto line = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("---", 0) == 0; });
  REQUIRE(line != lines.end());
  for (const exactune::Candidate& c : space) {
    INFO(c.variant.name);
    REQUIRE(++line != lines.end());
    REQUIRE(line->rfind(c.variant.name + " ", 0) == 0);
    const std::string status = line->substr(line->find_first_not_of(' ', c.variant.name.size()));
    CHECK(status == (c.valid() ? std::string("valid") : "excluded: " + c.excluded_because));
  }
}

TEST_CASE("verify needs a GPU or --cpu, and says so when there is none") {
  INFO("the CPU suites run with CUDA_VISIBLE_DEVICES empty (tests/CMakeLists.txt): no GPU is visible to them");
  REQUIRE(exactune::why_no_gpu().has_value());
  ScratchDirectory scratch("cli-verify");
  const fs::path shapes = exactune_test::write_cli_shapes(scratch.path(), {exactune_test::cli_shape("small", 64)});
  const std::string selection =
      fmt::format("--shapes '{}' --no-table --variants '{}'", shapes.string(), exactune_test::cli_variant());
  const CliResult r = run_cli("verify " + selection);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(contains(r.output, "--cpu"));
  const CliResult cpu = run_cli("verify --cpu --rows 2 " + selection);
  INFO(cpu.output);
  CHECK(cpu.exit_code == 0);
  CHECK(contains(cpu.output, "rstd host-approximated"));
}

TEST_CASE("the gate takes the chosen configurations from a heuristics.yaml", "[committed]") {
  // The first committed report (reports/<gpu>/<family>/) with both files.
  const fs::path reports = fs::path(EXACTUNE_SOURCE_DIR) / "reports";
  std::vector<fs::path> folders;
  for (const fs::directory_entry& gpu : fs::directory_iterator(reports)) {
    if (!gpu.is_directory()) continue;
    for (const fs::directory_entry& family : fs::directory_iterator(gpu.path())) {
      if (fs::exists(family.path() / "sweep.yaml") && fs::exists(family.path() / "heuristics.yaml")) {
        folders.push_back(family.path());
      }
    }
  }
  REQUIRE_FALSE(folders.empty());
  const fs::path folder = *std::min_element(folders.begin(), folders.end());
  const std::string sweep = (folder / "sweep.yaml").string();
  const CliResult r = run_cli(fmt::format("gate --baseline '{}' --candidate '{}' --heuristics '{}'", sweep, sweep,
                                          (folder / "heuristics.yaml").string()));
  INFO(folder.string() << "\n" << r.output);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.output, "gate: PASS"));
  CHECK(run_cli(fmt::format("gate --baseline '{}' --candidate '{}' --heuristics /no/such.yaml", sweep, sweep))
            .exit_code == 2);

  // gate-power over the same file as runs, one of them with a re-measure (RUN+AGAIN), pooled.
  ScratchDirectory scratch("cli-gate-power");
  const fs::path out = scratch.path() / "gate_power.json";
  const CliResult power =
      run_cli(fmt::format("gate-power --baseline '{0}' --heuristics '{1}' --out '{2}' '0:{0}+{0}' '0:{0}' '0.05:{0}'",
                          sweep, (folder / "heuristics.yaml").string(), out.string()));
  INFO(power.output);
  CHECK(power.exit_code == 0);
  CHECK(contains(power.output, "planted +0%: 2 runs, 0 failed"));
  CHECK(contains(power.output, "planted +5%: 1 runs, 0 failed"));
  CHECK(contains(exactune::read_text_file(out, "gate power"), "\"unchanged_figures\""));
  CHECK(run_cli(fmt::format("gate-power --baseline '{0}' --heuristics '{1}' --out '{2}' '0:{0}+/no/such.yaml'", sweep,
                            (folder / "heuristics.yaml").string(), out.string()))
            .exit_code == 2);
}
