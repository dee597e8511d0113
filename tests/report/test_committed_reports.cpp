// The committed reports are a pure function of committed inputs: for every
// reports/<gpu>/<family>/sweep.yaml, `exactune report` regenerates each file of
// the folder byte for byte, and `exactune tables` regenerates reports/tables/.
// A committed file that the commands no longer write (a heatmap of a renamed
// shape, say) is stale and fails too; the hand-written inputs beside a sweep
// (targets.yaml, harness_speed.json, NOTES.md) are read, not generated. The
// same in-process: each header and JSON is what its heuristics.yaml and its
// family's record of verified defaults generate, and reports/tables/ is what
// every heuristics.yaml and record generate, with a record for every family.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/report_writer.hpp"
#include "store/defaults_record.hpp"
#include "store/family_tables.hpp"
#include "store/heuristics_file.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_directory.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kReports = fs::path(EXACTUNE_SOURCE_DIR) / "reports";

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Every regular file below `folder`, relative to it.
std::set<fs::path> files_below(const fs::path& folder) {
  std::set<fs::path> files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file()) files.insert(fs::relative(entry.path(), folder));
  }
  return files;
}

// Each file of `made` equals the committed one in `committed`, and every
// committed file is made or is one of `inputs`.
void check_regenerated(const fs::path& made, const fs::path& committed, const std::set<fs::path>& inputs,
                       const std::string& command) {
  const std::set<fs::path> made_files = files_below(made);
  REQUIRE_FALSE(made_files.empty());
  for (const fs::path& file : made_files) {
    INFO("regenerate with: " << command << "  (" << file.string() << ")");
    REQUIRE(fs::exists(committed / file));
    CHECK(bytes_of(made / file) == bytes_of(committed / file));
  }
  for (const fs::path& file : files_below(committed)) {
    INFO(command << " writes no " << (committed / file).string() << ": stale, or an input this test does not know");
    CHECK((made_files.count(file) > 0 || inputs.count(file) > 0));
  }
}

}  // namespace

TEST_CASE("every committed report of every family regenerates byte for byte from its sweep.yaml", "[committed]") {
  REQUIRE(fs::is_directory(kReports));
  std::vector<fs::path> sweeps;
  for (const fs::directory_entry& gpu : fs::directory_iterator(kReports)) {
    if (!gpu.is_directory() || gpu.path().filename() == "tables") continue;
    for (const fs::directory_entry& family : fs::directory_iterator(gpu.path())) {
      if (fs::exists(family.path() / "sweep.yaml")) sweeps.push_back(family.path() / "sweep.yaml");
    }
  }
  REQUIRE_FALSE(sweeps.empty());
  for (const fs::path& sweep : sweeps) {
    ScratchDirectory out("committed-report");
    const std::string command = fmt::format("exactune report --from {}", sweep.string());
    const CliResult r = run_cli(fmt::format("report --from '{}' --out '{}'", sweep.string(), out.path().string()));
    INFO(command << "\n" << r.output);
    REQUIRE(r.exit_code == 0);
    // Inputs beside the sweep, measured or written by other commands: the
    // gate's power (exactune gate-power), the GPU's record of verified
    // defaults (exactune verify-defaults), the harness's speed, the targets.
    check_regenerated(out.path(), sweep.parent_path(),
                      {"targets.yaml", "harness_speed.json", "NOTES.md", "gate_power.json", "verified_defaults.yaml"},
                      command);
  }
}

TEST_CASE("the committed tables of every GPU regenerate byte for byte from the committed heuristics and records",
          "[committed]") {
  REQUIRE(fs::is_directory(kReports / "tables"));
  ScratchDirectory out("committed-tables");
  const std::string command = fmt::format("exactune tables --reports {}", kReports.string());
  const CliResult r = run_cli(fmt::format("tables --reports '{}' --records '{}' --out '{}'", kReports.string(),
                                          (kReports / "tables").string(), out.path().string()));
  INFO(command << "\n" << r.output);
  REQUIRE(r.exit_code == 0);
  // The records of verified defaults are written by verify-defaults, and read here.
  std::set<fs::path> records;
  for (const fs::path& file : files_below(kReports / "tables")) {
    if (file.filename() == "verified_defaults.yaml") records.insert(file);
  }
  CHECK_FALSE(records.empty());
  check_regenerated(out.path(), kReports / "tables", records, command);
}

TEST_CASE("committed reports: each header and JSON is what its heuristics.yaml and record generate", "[committed]") {
  int checked = 0;
  for (const fs::directory_entry& gpu : fs::directory_iterator(kReports)) {
    if (!gpu.is_directory()) continue;
    for (const fs::directory_entry& entry : fs::directory_iterator(gpu.path())) {
      const fs::path yaml = entry.path() / "heuristics.yaml";
      if (!fs::is_regular_file(yaml)) continue;
      INFO(yaml.string() << ": regenerate with `exactune emit-header --from " << yaml.string() << "`");
      // The host's record, and the GPU's own where it made one beside its yaml.
      const exactune::Heuristics heuristics = exactune::load_heuristics_file(yaml.string());
      const std::optional<exactune::DefaultsRecord> record =
          exactune::defaults_record_of(heuristics.family, exactune::tables_dir_of(yaml));
      CHECK(record.has_value());
      const std::vector<exactune::GeneratedFile> files = exactune::generated_tables_files(
          heuristics, record, exactune::device_record_beside(yaml, heuristics.family, heuristics.device.name));
      CHECK(files.size() == 2);
      for (const exactune::GeneratedFile& f : files) {
        INFO(f.path.string());
        CHECK(bytes_of(entry.path() / f.path) == f.text);
      }
      ++checked;
    }
  }
  INFO("reports/*/*/heuristics.yaml under " << kReports.string());
  CHECK(checked > 0);
}

TEST_CASE("committed reports/tables/ is what reports/*/*/heuristics.yaml and the records generate", "[committed]") {
  const fs::path committed = kReports / "tables";
  REQUIRE(fs::is_directory(committed));
  INFO("regenerate with `exactune tables`");
  const std::vector<exactune::HeuristicsFile> heuristics = exactune::load_swept_heuristics(kReports);
  std::vector<exactune::FamilyTables> families = exactune::tables_by_family(heuristics);
  // Each family's record of verified defaults is an input (exactune verify-defaults writes it), not an output.
  std::vector<fs::path> generated;
  for (exactune::FamilyTables& t : families) {
    exactune::read_defaults_record(t, committed);
    CHECK(t.defaults_record.has_value());
    generated.push_back(exactune::defaults_record_path(t.family));
  }
  for (const exactune::GeneratedFile& f : exactune::tables_files(families, exactune::load_sweeps_beside(heuristics))) {
    INFO(f.path.string());
    CHECK(bytes_of(committed / f.path) == f.text);
    generated.push_back(f.path);
  }
  // And nothing else: a file of a GPU or family no longer swept would mislead.
  for (const fs::path& relative : files_below(committed)) {
    INFO(relative.string() << " is not generated any more: remove it");
    CHECK(std::find(generated.begin(), generated.end(), relative) != generated.end());
  }
}
