// The reports as sets: `report`, `emit-header` and `tables` replace all their
// files or none (a folder where one file goes, a heuristics.yaml that cannot be
// read, a shape name that is no file name), never write outside their folder,
// and clear the temporaries a killed run left; and write_file_set itself. The
// commands run in the CLI of the toy family (run_toy_cli), on the recorded
// sweep of support/recorded_sweep.hpp.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "choose/chooser.hpp"
#include "report/file_set.hpp"
#include "report/heuristics_emitter.hpp"
#include "store/heuristics_file.hpp"
#include "support/recorded_sweep.hpp"
#include "support/run_cli.hpp"

using namespace exactune;
using namespace recorded;
namespace fs = std::filesystem;

namespace {

// Every file under `folder` (those named with a leading dot too) with its bytes, by path relative to it.
std::map<std::string, std::string> files_under(const fs::path& folder) {
  std::map<std::string, std::string> files;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(folder)) {
    if (e.is_regular_file()) files[fs::relative(e.path(), folder).string()] = read_text(e.path());
  }
  return files;
}

std::vector<std::string> names_of(const std::map<std::string, std::string>& files) {
  std::vector<std::string> names;
  for (const auto& [name, text] : files) names.push_back(name);
  return names;
}

// A process id that no process has: a child's, once it has exited and been reaped.
pid_t pid_of_a_finished_process() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

}  // namespace

TEST_CASE("report refuses a shape name that is no file name, and writes nothing, inside --out or out of it",
          "[report_sets]") {
  const TempDir dir("report-set-names");
  SweepResults results = readable_sweep();
  // "big" has the most rows at its size: its name makes a heatmap file name.
  REQUIRE(results.shapes[3].shape.name == "big");
  results.shapes[3].shape.name = "../../escaped";
  const fs::path sweep = write_sweep(dir.path() / "in", results);
  const fs::path out = dir.path() / "a" / "b" / "out";
  fs::create_directories(out);
  const CliResult r = run_toy_cli(fmt::format("report --from '{}' --out '{}'", sweep.string(), out.string()));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  // The sweep's reader refuses it, on its line, before any report is made of it.
  CHECK(contains(r.output, fmt::format("exactune: error: {}:", sweep.string())));
  CHECK(contains(r.output, ": name '../../escaped' must match [a-z0-9._-]+"));
  CHECK(files_under(dir.path() / "a").empty());
}

TEST_CASE("report replaces its whole set or nothing: a folder where summary.md goes leaves every file as it was",
          "[report_sets]") {
  const TempDir dir("report-set-whole");
  const fs::path out = dir.path() / "out";
  const fs::path first = write_sweep(dir.path() / "first");
  REQUIRE(run_toy_cli(fmt::format("report --from '{}' --out '{}'", first.string(), out.string())).exit_code == 0);
  // summary.md comes after sweep.yaml, heuristics.yaml, the header and the JSON:
  // those four are renamed into place first and must be put back.
  fs::remove(out / "summary.md");
  fs::create_directory(out / "summary.md");
  const auto before = files_under(out);
  REQUIRE(before.count("heuristics.yaml") == 1);

  // A sweep where the wide variant wins mid: every one of those four files changes.
  SweepResults faster = readable_sweep();
  REQUIRE(faster.shapes[1].variants[1].variant == kWide);
  faster.shapes[1].variants[1].rotated->median_us = 9.0;
  faster.wall_s = 99;
  const fs::path second = write_sweep(dir.path() / "second", faster);
  const CliResult r = run_toy_cli(fmt::format("report --from '{}' --out '{}'", second.string(), out.string()));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.output, fmt::format("exactune: error: {}: is a folder, not a file", (out / "summary.md").string())));
  const auto after = files_under(out);
  CHECK(names_of(after) == names_of(before));  // no temporary or backup left either
  CHECK(after == before);
}

TEST_CASE("emit-header writes both files or neither", "[report_sets]") {
  const TempDir dir("report-set-emit");
  const fs::path yaml = dir.path() / "heuristics.yaml";
  write_text(yaml, to_heuristics_yaml(choose_heuristics(recorded_sweep())));
  const fs::path out = dir.path() / "out";

  SECTION("a folder where the JSON goes leaves the header as it was") {
    fs::create_directories(out / kHeuristicsJsonFile);
    write_text(out / kHeuristicsHeaderFile, "// the committed header\n");
    const CliResult r = run_toy_cli(fmt::format("emit-header --from '{}' --out '{}'", yaml.string(), out.string()));
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(read_text(out / kHeuristicsHeaderFile) == "// the committed header\n");
    CHECK(names_of(files_under(out)) == std::vector<std::string>{kHeuristicsHeaderFile});
  }
  SECTION("a heuristics.yaml that is not UTF-8 is refused at its line, before anything is written") {
    std::string text = read_text(yaml);
    const std::size_t device = text.find("NVIDIA H200", text.find("\ndevice:"));
    REQUIRE(device != std::string::npos);
    text.replace(device + 8, 1, "\xff");
    write_text(yaml, text);
    const int line = static_cast<int>(std::count(text.begin(), text.begin() + device, '\n')) + 1;
    const CliResult r = run_toy_cli(fmt::format("emit-header --from '{}' --out '{}'", yaml.string(), out.string()));
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.output, fmt::format("exactune: error: {}:{}:", yaml.string(), line)));
    CHECK_FALSE(contains(r.output, "internal error"));
    CHECK((!fs::exists(out) || files_under(out).empty()));
  }
}

TEST_CASE("tables replaces its whole set or nothing", "[report_sets]") {
  const TempDir dir("report-set-tables");
  const fs::path gpu = dir.path() / "reports" / "nvidia-h200" / "toy_double";
  fs::create_directories(gpu);
  write_text(gpu / "heuristics.yaml", to_heuristics_yaml(choose_heuristics(recorded_sweep())));
  const fs::path out = dir.path() / "tables";
  // The per-device file is written after the two tables.
  fs::create_directories(out / "toy_double" / "device_name=NVIDIA_H200.exactune.json");
  write_text(out / kTablesHeaderFile, "// the committed tables\n");
  const CliResult r =
      run_toy_cli(fmt::format("tables --reports '{}' --out '{}'", (dir.path() / "reports").string(), out.string()));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(read_text(out / kTablesHeaderFile) == "// the committed tables\n");
  CHECK(names_of(files_under(out)) == std::vector<std::string>{kTablesHeaderFile});
}

TEST_CASE("report removes the temporaries a killed run left, and keeps those of a running one", "[report_sets]") {
  const TempDir dir("report-set-leftovers");
  const fs::path sweep = write_sweep(dir.path());
  const fs::path out = sweep.parent_path();
  const pid_t dead = pid_of_a_finished_process();
  const fs::path killed_set = temporary_of(out / "summary.md", dead);               // .summary.md.tmp<pid>
  const fs::path killed_single = out / fmt::format("heuristics.yaml.tmp{}", dead);  // write_text_file's
  const fs::path running = temporary_of(out / "summary.md", ::getpid());            // this test is alive
  const fs::path someone_elses = out / fmt::format("notes.tmp{}", dead);            // no name of the set
  for (const fs::path& p : {killed_set, killed_single, running, someone_elses}) write_text(p, "partial");

  const CliResult r = run_toy_cli(fmt::format("report --from '{}'", sweep.string()));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(fs::exists(killed_set));
  CHECK_FALSE(fs::exists(killed_single));
  CHECK(fs::exists(running));
  CHECK(fs::exists(someone_elses));
  CHECK(fs::exists(out / "summary.md"));
}

TEST_CASE("write_file_set puts back the files it renamed when a later one fails, and removes the new ones",
          "[report_sets]") {
  const TempDir dir("report-set-rollback");
  write_text(dir.path() / "a.txt", "old a");
  fs::create_directory(dir.path() / "c.txt");
  const auto before = files_under(dir.path());
  CHECK_THROWS_AS(write_file_set(dir.path(), {{"a.txt", "new a"}, {"sub/b.txt", "new b"}, {"c.txt", "new c"}}), error);
  CHECK(files_under(dir.path()) == before);

  CHECK(write_file_set(dir.path(), {{"a.txt", "new a"}, {"sub/b.txt", "new b"}}).size() == 2);
  CHECK(files_under(dir.path()) == std::map<std::string, std::string>{{"a.txt", "new a"}, {"sub/b.txt", "new b"}});
}

TEST_CASE("write_file_set writes nothing for a path that leaves its folder", "[report_sets]") {
  const TempDir dir("report-set-outside");
  const fs::path inside = dir.path() / "inside";
  for (const fs::path& path :
       {fs::path("../x.txt"), fs::path("sub/../../x.txt"), fs::path("./x.txt"), dir.path() / "x.txt"}) {
    INFO(path);
    const std::string message = error_of([&] { write_file_set(inside, {{"fine.txt", "ok"}, {path, "no"}}); });
    CHECK(contains(message, "would be written outside"));
  }
  CHECK(files_under(dir.path()).empty());
}
