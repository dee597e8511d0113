// One family's tables for several GPUs (the toy family's three GPUs of
// support/recorded_sweep.hpp), and `exactune tables`, which writes every
// family's for every GPU under reports/: the JSON with every device, the one
// header that holds every family, the per-device files, and the refusals.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

#include "catch.hpp"
#include "report/device_config_files.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/report_writer.hpp"
#include "runtime/device_tables.hpp"
#include "store/defaults_record.hpp"
#include "store/family_tables.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "support/committed_sweeps.hpp"
#include "support/recorded_sweep.hpp"
#include "support/run_cli.hpp"

using namespace exactune;
using namespace recorded;
namespace fs = std::filesystem;

namespace {

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The committed heuristics.yaml of every GPU, as `exactune tables` reads them by default.
const fs::path kReports = fs::path(EXACTUNE_SOURCE_DIR) / "reports";

// A registered family other than the toy, whichever the registry lists first.
const KernelFamily& another_family() {
  for (const KernelFamily* f : FamilyRegistry::all()) {
    if (f != &exactune_test::toy_family()) return *f;
  }
  FAIL("no family but the toy is registered");
  throw;
}

}  // namespace

TEST_CASE("one family's tables take every GPU's heuristics, sorted by slug", "[tables]") {
  const FamilyTables tables = family_tables(three_gpu_files());
  CHECK(tables.family == "toy_double");
  REQUIRE(tables.devices.size() == 3);
  CHECK(tables.devices[0].slug == "nvidia-a100-sxm4-80gb");
  CHECK(tables.devices[1].slug == "nvidia-h200");
  CHECK(tables.devices[2].slug == "nvidia-h800-pcie");

  const std::string json = emit_json(tables);
  INFO(json);
  CHECK(json.rfind("{\n  \"generated\": \"by exactune emit-header from heuristics.yaml and "
                   "reports/tables/<family>/verified_defaults.yaml; do not edit\",",
                   0) == 0);
  CHECK(contains(json, "\"inputs\": \"device_name, cc_major, cc_minor, sm_count, length, rows, alignment\""));
  CHECK(count_of(json, "\n      \"slug\": ") == 3);
  CHECK(json.find("\"name\": \"NVIDIA A100-SXM4-80GB\"") < json.find("\"name\": \"NVIDIA H200\""));
  CHECK(json.find("\"name\": \"NVIDIA H200\"") < json.find("\"name\": \"NVIDIA H800 PCIe\""));
  CHECK(contains(json, "\"cc_major\": 8,\n      \"cc_minor\": 0,\n      \"sm_count\": 108,"));
  CHECK(contains(json, "\"1. The device: the one whose name is the GPU's name"));
  CHECK(
      contains(json, std::string("\"4. No device, or rules 2 and 3 did not answer: the global default, ") + kDefault));

  // The N = 1 case is emit-header's: the same text as from the heuristics alone.
  const Heuristics h200 = three_gpu_files().front().heuristics;
  CHECK(emit_json(family_tables({{"h.yaml", h200}})) == emit_json(h200));
  CHECK(emit_header(family_tables({{"h.yaml", h200}})) == emit_header(h200));
}

TEST_CASE("a family's tables refuse other families, a device twice and another global default", "[tables]") {
  std::vector<HeuristicsFile> files = three_gpu_files();
  const auto refusal = [&](HeuristicsFile changed) {
    std::vector<HeuristicsFile> two = {files[0], std::move(changed)};
    std::string message = "(no error)";
    try {
      family_tables(two);
    } catch (const input_error& e) {
      message = e.what();
    }
    return message;
  };
  const std::string other = another_family().name();
  HeuristicsFile other_family = files[1];
  other_family.heuristics.family = other;
  CHECK(refusal(other_family) ==
        fmt::format("reports/nvidia-h800-pcie/h.yaml: family {}, but reports/nvidia-h200/h.yaml has family "
                    "toy_double: one family's tables take its files alone",
                    other));

  HeuristicsFile same_device = files[1];
  same_device.heuristics.device.name = "NVIDIA H200";
  const std::string twice = refusal(same_device);
  CHECK(twice.rfind("reports/nvidia-h800-pcie/h.yaml: device 'NVIDIA H200' again, after reports/nvidia-h200/h.yaml",
                    0) == 0);

  HeuristicsFile other_default = files[1];
  other_default.heuristics.global_default = configuration(kWide);
  CHECK(contains(refusal(other_default), fmt::format("reports/nvidia-h800-pcie/h.yaml: global default {}, but "
                                                     "reports/nvidia-h200/h.yaml has global default {}",
                                                     kWide, kDefault)));
  CHECK(contains(error_of([] { family_tables(std::vector<HeuristicsFile>{}); }), "no heuristics.yaml"));

  // Families in the registry's order, each with its own devices.
  files.push_back(other_family);
  files.back().heuristics.device.name = "NVIDIA H100";
  const std::vector<FamilyTables> families = tables_by_family(files);
  REQUIRE(families.size() == 2);
  std::vector<std::string> registry_order;
  for (const KernelFamily* f : FamilyRegistry::all()) {
    if (f->name() == other || f->name() == "toy_double") registry_order.push_back(f->name());
  }
  CHECK(registry_order == std::vector<std::string>{families[0].family, families[1].family});
  for (const FamilyTables& t : families) CHECK(t.devices.size() == (t.family == other ? 1u : 3u));
}

TEST_CASE("per-device files are named as serving frameworks name them, and never leave their folder", "[tables]") {
  CHECK(device_file_name("NVIDIA H200") == "device_name=NVIDIA_H200.exactune.json");
  CHECK(framework_config_file_name("length", 2240, "NVIDIA H200") == "length=2240,device_name=NVIDIA_H200.json");
  CHECK(framework_config_file_name("rows_n", 3072, "NVIDIA A100-SXM4-80GB") ==
        "rows_n=3072,device_name=NVIDIA_A100-SXM4-80GB.json");
  CHECK(device_name_in_file("a/b c") == "a_b_c");
  CHECK(device_name_in_file("../x\\y") == ".._x_y");

  const FamilyTables tables = family_tables(three_gpu_files());
  const std::vector<DeviceConfigFile> files = device_config_files(tables);
  std::vector<std::string> names;
  for (const DeviceConfigFile& f : files) names.push_back(f.name);
  // Per GPU: a framework file per tuned size (the recorded sweep's 2240 and 3072), then the exactune file.
  CHECK(std::count(names.begin(), names.end(), "length=2240,device_name=NVIDIA_H200.json") == 1);
  CHECK(std::count(names.begin(), names.end(), "length=3072,device_name=NVIDIA_H200.json") == 1);
  CHECK(std::count(names.begin(), names.end(), "device_name=NVIDIA_H800_PCIe.exactune.json") == 1);
  const auto text_of = [&](const std::string& name) {
    for (const DeviceConfigFile& f : files) {
      if (f.name == name) return f.text;
    }
    FAIL("no file " << name);
    return std::string();
  };
  const std::string h200 = text_of("device_name=NVIDIA_H200.exactune.json");
  INFO(h200);
  CHECK(h200.rfind(std::string("{\n  \"generated\": \"by exactune tables from reports/*/*/heuristics.yaml and "
                               "reports/tables/*/verified_defaults.yaml; do not edit\",\n"
                               "  \"family\": \"toy_double\",\n  \"device\": {\n    \"name\": \"NVIDIA H200\",\n"
                               "    \"arch\": \"sm_90\",\n    \"cc_major\": 9,\n    \"cc_minor\": 0,\n"
                               "    \"sm_count\": 132\n  },\n"
                               "  \"keys\": \"length -> the largest row count of the bucket (\\\"inf\\\": every larger "
                               "count) -> launch config\",\n  \"default\": {\n    \"variant\": \"") +
                       kWide + "\",\n    \"threads\": 64,",
                   0) == 0);
  // The recorded sweep's buckets: length 2240 up to 275, 4096 and beyond; 3072 up to 4344 and beyond.
  CHECK(contains(h200, std::string("  \"2240\": {\n    \"275\": {\n      \"variant\": \"") + kDefault + "\","));
  CHECK(contains(h200, std::string("    \"inf\": {\n      \"variant\": \"") + kLarge + "\","));
  const std::string h200_2240 = text_of("length=2240,device_name=NVIDIA_H200.json");
  CHECK(h200_2240.rfind(std::string("{\n  \"1\": {\n    \"variant\": \"") + kDefault + "\",", 0) == 0);
  CHECK(contains(h200_2240, std::string("  \"275\": {\n    \"variant\": \"") + kDefault + "\","));
  CHECK(contains(h200_2240, std::string("  \"4097\": {\n    \"variant\": \"") + kLarge + "\","));
  CHECK(contains(text_of("length=2240,device_name=NVIDIA_H800_PCIe.json"),
                 std::string("\"variant\": \"") + kH800Choice + "\""));

  FamilyTables clash = tables;
  clash.devices[0].name = "NVIDIA H200?";
  clash.devices[2].name = "NVIDIA H200!";
  CHECK(contains(error_of([&] { device_config_files(clash); }),
                 "devices 'NVIDIA H200?' and 'NVIDIA H200!' both make the file name "
                 "device_name=NVIDIA_H200_.exactune.json"));
}

namespace {

// What vLLM's and SGLang's loaders do with a config file: json.load it, turn
// every key into an int (a key that is not one raises), and take the config
// of the key nearest the row count, the first in the file on a tie.
std::string nearest_variant(const nlohmann::json& file, std::int64_t rows) {
  std::optional<std::int64_t> best_distance;
  std::string variant;
  for (const auto& [key, config] : file.items()) {
    std::size_t used = 0;
    const std::int64_t k = std::stoll(key, &used);
    REQUIRE(used == key.size());
    const std::int64_t distance = k > rows ? k - rows : rows - k;
    if (!best_distance || distance < *best_distance) {
      best_distance = distance;
      variant = config.at("variant").get<std::string>();
    }
  }
  return variant;
}

// Every framework file of `families` loaded as those loaders do answers, at
// the powers of two from 1 to 65536 and at each bucket's edges, the variant
// select() (the runtime's table_candidates) serves first.
void check_framework_files(const std::vector<FamilyTables>& families) {
  const RuntimeTables runtime = parse_runtime_tables(emit_tables_json(families), "tables");
  for (const FamilyTables& tables : families) {
    const FamilyTable* table = runtime.find(tables.family);
    REQUIRE(table != nullptr);
    for (const DeviceConfigFile& f : device_config_files(tables)) {
      if (f.name.ends_with(".exactune.json")) continue;
      INFO(tables.family << "/" << f.name);
      const nlohmann::json file = nlohmann::json::parse(f.text);
      const int size = std::stoi(f.name.substr(f.name.find('=') + 1));
      const TableDevice* device = nullptr;
      for (const TableDevice& d : table->devices) {
        if (f.name.ends_with("device_name=" + device_name_in_file(d.identity.name) + ".json")) device = &d;
      }
      REQUIRE(device != nullptr);
      const DeviceResolution resolution{device, DeviceMatch::exact_name};
      std::vector<std::int64_t> rows;
      for (std::int64_t p = 1; p <= 65536; p *= 2) rows.push_back(p);
      for (const TableBucket& b : device->buckets) {
        if (b.size == size && b.max_rows) {
          rows.push_back(*b.max_rows);
          rows.push_back(*b.max_rows + 1);
        }
      }
      for (std::int64_t r : rows) {
        INFO("rows " << r);
        const std::vector<TableCandidate> candidates = table_candidates(*table, resolution, size, r);
        REQUIRE_FALSE(candidates.empty());
        CHECK(candidates.front().step == CandidateStep::tuned_bucket);
        CHECK(nearest_variant(file, r) == candidates.front().variant);
      }
    }
  }
}

}  // namespace

TEST_CASE("the framework config files answer select()'s choice when loaded as vLLM and SGLang load them",
          "[tables][framework]") {
  check_framework_files({family_tables(three_gpu_files())});
  check_framework_files(tables_by_family(load_swept_heuristics(kReports)));
}

TEST_CASE("exactune_tables.hpp holds every family in one translation unit", "[tables]") {
  // Every family: the toy's three GPUs, and each committed family.
  std::vector<FamilyTables> families = {family_tables(three_gpu_files())};
  for (FamilyTables& committed : tables_by_family(load_swept_heuristics(kReports))) {
    read_defaults_record(committed, kReports / "tables");
    families.push_back(std::move(committed));
  }
  // The toy's, and each registered family's with a committed sweep.
  const std::vector<const KernelFamily*> registered = FamilyRegistry::all();
  const auto swept = std::count_if(registered.begin(), registered.end(),
                                   [](const KernelFamily* f) { return exactune_test::has_committed_sweep(*f); });
  REQUIRE(families.size() == 1 + static_cast<std::size_t>(swept));
  const std::string header = emit_tables_header(families);
  CHECK(header.rfind("// Generated by exactune tables from reports/*/*/heuristics.yaml and "
                     "reports/tables/*/verified_defaults.yaml; do not edit.\n",
                     0) == 0);
  CHECK(count_of(header, "#pragma once") == 1);
  // Each family's namespace as its own header has it.
  for (const FamilyTables& tables : families) {
    const std::string own = emit_header(tables);
    CHECK(contains(header, own.substr(own.find("#pragma once\n\n") + 14)));
  }
  // A committed family's global default, at a size it was verified at: what select() answers without a device.
  const FamilyTables& other = families[1];
  REQUIRE(other.defaults_record.has_value());
  const VerifiedConfiguration* verified = other.defaults_record->find(other.global_default.variant);
  REQUIRE(verified != nullptr);
  REQUIRE_FALSE(verified->verified.empty());
  const TempDir dir("tables-header");
  const std::string output = compile_and_run(dir.path(), kTablesHeaderFile, header,
                                             fmt::format(R"(#include <cstdio>
#include "exactune_tables.hpp"
#include "exactune_tables.hpp"
namespace toy = exactune_heuristics::toy_double;
namespace other = exactune_heuristics::{};
static_assert(toy::select("NVIDIA H800 PCIe", 9, 0, 114, 2240, 37, 16).threads == 32, "constexpr");
int main() {{
  std::printf("%s\n%s\n", toy::select("NVIDIA A100-SXM4-80GB", 8, 0, 108, 2240, 37, 16).variant,
              other::select(nullptr, 7, 5, 40, {}, 37, 16).variant);
}}
)",
                                                         other.family, verified->verified.front().first));
  CHECK(output == fmt::format("{}\n{}\n", kA100Choice, other.global_default.variant));
  CHECK(contains(emit_tables_json(families),
                 "\"families\": [\n    {\n      \"generated\": \"by exactune tables from "
                 "reports/*/*/heuristics.yaml and reports/tables/*/verified_defaults.yaml; "
                 "do not edit\",\n      \"format_version\": 1,\n"
                 "      \"family\": \"toy_double\","));
}

TEST_CASE("exactune tables writes the tables of every heuristics.yaml under --reports", "[tables][cli]") {
  const TempDir dir("tables-cli");
  const fs::path reports = dir.path() / "reports";
  for (const HeuristicsFile& f : three_gpu_files()) {
    fs::create_directories(reports / f.heuristics.device.slug / "toy_double");
    write_text(reports / f.heuristics.device.slug / "toy_double" / "heuristics.yaml", to_heuristics_yaml(f.heuristics));
  }
  fs::create_directories(reports / "nvidia-b200" / "toy_double");  // swept, nothing chosen yet: skipped
  const auto cli = [&](const std::string& args) { return run_toy_cli("tables " + args); };
  const fs::path out = dir.path() / "out";
  const CliResult r = cli(fmt::format("--reports '{}' --out '{}'", reports.string(), out.string()));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::vector<HeuristicsFile> read = load_swept_heuristics(reports);
  REQUIRE(read.size() == 3);
  CHECK(read[0].path == (reports / "nvidia-a100-sxm4-80gb" / "toy_double" / "heuristics.yaml").string());
  const std::vector<FamilyTables> families = {family_tables(read)};
  std::vector<std::string> names = {"exactune_tables.hpp", "exactune_tables.json"};
  for (const char* gpu : {"NVIDIA_A100-SXM4-80GB", "NVIDIA_H200", "NVIDIA_H800_PCIe"}) {
    for (const char* size : {"length=2240,", "length=3072,"})
      names.push_back(fmt::format("toy_double/{}device_name={}.json", size, gpu));
    names.push_back(fmt::format("toy_double/device_name={}.exactune.json", gpu));
  }
  // What the tables buy, from the sweep.yaml beside each heuristics.yaml: here none.
  names.push_back("table_vs_rule.md");
  for (const std::string& name : names) {
    INFO(name);
    CHECK(contains(r.output, fmt::format("wrote {}\n", (out / name).string())));
  }
  CHECK(count_of(r.output, "wrote ") == names.size());
  CHECK(read_text(out / kTablesJsonFile) == emit_tables_json(families));
  CHECK(read_text(out / kTablesHeaderFile) == emit_tables_header(families));
  CHECK(contains(read_text(out / "table_vs_rule.md"), "No sweep.yaml lies beside any heuristics.yaml"));

  SECTION("--out defaults to <reports>/tables, which the next run skips as it holds no heuristics.yaml") {
    for (int run = 0; run < 2; ++run) {
      const CliResult again = cli(fmt::format("--reports '{}'", reports.string()));
      INFO(again.output);
      CHECK(again.exit_code == 0);
      CHECK(read_text(reports / "tables" / kTablesJsonFile) == emit_tables_json(families));
    }
  }
  SECTION("a missing folder: exit 2, one line") {
    const CliResult missing = cli("--reports /no/such/reports");
    CHECK(missing.exit_code == 2);
    CHECK(missing.output.rfind("exactune: error: /no/such/reports: no such folder", 0) == 0);
    CHECK(count_of(missing.output, "\n") == 1);
  }
  SECTION("a folder without heuristics: exit 2") {
    const CliResult empty = cli(fmt::format("--reports '{}'", (reports / "nvidia-b200").string()));
    CHECK(empty.exit_code == 2);
    CHECK(contains(empty.output, "nothing to make tables of"));
  }
  SECTION("a heuristics.yaml that fails to read: exit 2, naming its file and line") {
    const fs::path bad = reports / "nvidia-b200" / "toy_double" / "heuristics.yaml";
    write_text(bad, "format_version: 1\nfamily: rms_norm\n");
    const CliResult failed = cli(fmt::format("--reports '{}'", reports.string()));
    CHECK(failed.exit_code == 2);
    CHECK(contains(failed.output, bad.string() + ":2: family: no kernel family named 'rms_norm'"));
  }
}

TEST_CASE("a GPU's own record beside its heuristics.yaml serves it alone, and one of another GPU is refused",
          "[tables][verified]") {
  const TempDir dir("tables-own-record");
  const fs::path reports = dir.path() / "reports";
  for (const HeuristicsFile& f : three_gpu_files()) {
    fs::create_directories(reports / f.heuristics.device.slug / "toy_double");
    write_text(reports / f.heuristics.device.slug / "toy_double" / "heuristics.yaml", to_heuristics_yaml(f.heuristics));
  }
  const std::vector<HeuristicsFile> files = load_swept_heuristics(reports);
  const DeviceHeuristics& h200 = files[1].heuristics.device;
  REQUIRE(h200.name == "NVIDIA H200");
  DefaultsRecord record;
  record.command = "exactune verify-defaults --family toy_double";
  record.family = "toy_double";
  record.reference_recipe = FamilyRegistry::find("toy_double").reference_recipe();
  record.backend = "GPU";
  record.target = "sm_90";
  record.device = h200.name;
  record.shape = "toy";
  record.rows = 4;
  record.configurations = {{h200.default_configuration.variant, {}, {{1024, 1024, 1}}, {}, {}}};
  const fs::path beside = reports / h200.slug / "toy_double" / "verified_defaults.yaml";
  write_text(beside, to_defaults_yaml(record));

  const FamilyTables tables = family_tables(load_swept_heuristics(reports));
  REQUIRE(tables.device_records.size() == 1);
  CHECK(own_record(tables, "NVIDIA H200") != nullptr);
  CHECK(own_record(tables, "NVIDIA H800 PCIe") == nullptr);
  const std::vector<VerifiedSizes> verified = verified_sizes(tables);
  const std::string variant = h200.default_configuration.variant;
  CHECK(is_verified(verified, variant, 1024, "NVIDIA H200", true));
  CHECK_FALSE(is_verified(verified, variant, 1024, "NVIDIA H800 PCIe", false));  // evidence for the H200 alone
  CHECK_FALSE(is_verified(verified, variant, 1024, "", false));
  const std::string json = emit_json(tables);
  CHECK(contains(json, "\"own_record\": true"));
  CHECK(contains(json, "\"device\": \"NVIDIA H200\""));
  CHECK(contains(json, "exact on NVIDIA H200 (sm_90) (exactune verify-defaults --family toy_double)"));
  // Each GPU's provenance file lists the evidence that serves it alone.
  for (const DeviceConfigFile& f : device_config_files(tables)) {
    if (!f.name.ends_with(".exactune.json")) continue;
    const nlohmann::json file = nlohmann::json::parse(f.text);
    const std::string gpu = file["device"]["name"];
    INFO(f.name);
    for (const nlohmann::json& range : file["verified"]) {
      const std::string device = range["device"];
      CHECK((gpu == "NVIDIA H200" ? device == gpu : (device.empty() || device == gpu)));
    }
  }

  SECTION("a record made on another GPU, or on the host, beside a GPU's heuristics.yaml is refused") {
    for (const std::string& device : {std::string("NVIDIA H800 PCIe"), std::string()}) {
      record.device = device;
      write_text(beside, to_defaults_yaml(record));
      try {
        family_tables(load_swept_heuristics(reports));
        FAIL("a record of " << (device.empty() ? "the host" : device) << " was taken as the H200's");
      } catch (const input_error& e) {
        CHECK(contains(e.what(), beside.string() + ": made on "));
        CHECK(contains(e.what(), "a GPU's record is its own evidence alone"));
      }
    }
  }
  SECTION("the record reads back with the GPU it was made on") {
    CHECK(load_defaults_file(beside.string()).device == "NVIDIA H200");
    CHECK(contains(read_text(beside), "\ndevice: \"NVIDIA H200\"\n"));
  }
}
