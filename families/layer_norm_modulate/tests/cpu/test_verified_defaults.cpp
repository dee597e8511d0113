// Tables serve only what was proven: the record of verified defaults
// (reports/tables/<family>/verified_defaults.yaml, exactune verify-defaults)
// re-verified at a sample of its sizes on the CPU, failures recorded without
// losing other sizes, and the generated select() and the runtime's choice
// returning no configuration at a size or alignment it was not verified for.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "heuristics_fixture.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/report_writer.hpp"
#include "runtime/device_tables.hpp"
#include "runtime/runtime_tables.hpp"
#include "shapes/shape_file.hpp"
#include "store/defaults_record.hpp"
#include "store/family_tables.hpp"
#include "sweep/defaults_verification.hpp"
#include "util/embedded_files.hpp"

using namespace exactune;
using namespace heuristics_fixture;
namespace fs = std::filesystem;

namespace {

const fs::path kReports = fs::path(EXACTUNE_SOURCE_DIR) / "reports";

// The committed tables of every family, records read, as `exactune tables` makes them.
std::vector<FamilyTables> committed_tables() {
  std::vector<FamilyTables> families = tables_by_family(load_swept_heuristics(kReports));
  for (FamilyTables& t : families) read_defaults_record(t, kReports / "tables");
  return families;
}

const FamilyTables& of_family(const std::vector<FamilyTables>& families, const std::string& name) {
  for (const FamilyTables& t : families) {
    if (t.family == name) return t;
  }
  FAIL("no tables of " << name);
  throw;
}

Variant variant_named(const KernelFamily& family, const std::string& name, int size) {
  for (const Candidate& c : enumerate_space(family, size)) {
    if (c.variant.name == name) return c.variant;
  }
  FAIL(name << " is no variant of " << family.name());
  throw;
}

// The sizes to re-verify of one configuration: its smallest and largest
// verified sizes, and those of `odd` it was verified at.
std::vector<int> sample(const VerifiedConfiguration& c, const std::vector<int>& odd) {
  const std::vector<int> all = expand_sizes(c.verified);
  std::set<int> picked;
  if (!all.empty()) picked.insert({all.front(), all.back()});
  for (int s : odd) {
    if (contains_size(c.verified, s)) picked.insert(s);
  }
  return {picked.begin(), picked.end()};
}

DefaultsRecord verify_on_cpu(const KernelFamily& family, const std::vector<ConfigurationToVerify>& plan,
                             const DefaultsRecord& like, const std::vector<std::string>& defines = {}) {
  const CompileCache cache(CompileCache::default_directory());
  CpuBackend cpu(2);
  const ShapeSet set = default_shapes(family);
  const auto shape =
      std::find_if(set.shapes.begin(), set.shapes.end(), [&](const Shape& s) { return s.name == like.shape; });
  REQUIRE(shape != set.shapes.end());
  DefaultsVerificationOptions options;
  options.rows = static_cast<int>(like.rows);
  options.stage.variant_defines = defines;
  return verify_configurations(family, cpu, load_support_kernels(family, cpu, cache), cache, *shape, plan, options);
}

// The committed record's claims, re-verified at a few sizes per configuration.
void reverify_sample(const std::string& family_name, const std::vector<int>& odd) {
  const KernelFamily& family = FamilyRegistry::find(family_name);
  const std::vector<FamilyTables> families = committed_tables();
  const FamilyTables& tables = of_family(families, family_name);
  REQUIRE(tables.defaults_record);
  const DefaultsRecord& record = *tables.defaults_record;
  CHECK(record.reference_recipe == family.reference_recipe());
  std::vector<ConfigurationToVerify> plan;
  for (const VerifiedConfiguration& c : record.configurations) {
    const std::vector<int> sizes = sample(c, odd);
    REQUIRE(!sizes.empty());
    const Variant v = variant_named(family, c.variant, sizes.front());
    plan.push_back({{v.name, v.params}, c.roles, sizes});
  }
  const DefaultsRecord again = verify_on_cpu(family, plan, record);
  REQUIRE(again.configurations.size() == record.configurations.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    INFO(plan[i].configuration.variant);
    for (const SizeFailure& f : again.configurations[i].failed)
      FAIL_CHECK("size " << f.size << ": " << f.first_failure);
    CHECK(expand_sizes(again.configurations[i].verified) == plan[i].sizes);
  }
}

}  // namespace

TEST_CASE("sizes compact into ranges with a step, and read back", "[verified]") {
  CHECK(compact_sizes({}).empty());
  CHECK(compact_sizes({8, 4, 12, 16}) == std::vector<SizeRange>{{4, 16, 4}});
  CHECK(compact_sizes({4, 8, 20, 2244}) == std::vector<SizeRange>{{4, 4, 1}, {8, 8, 1}, {20, 20, 1}, {2244, 2244, 1}});
  CHECK(compact_sizes({4, 8, 12, 20, 28, 36}) == std::vector<SizeRange>{{4, 12, 4}, {20, 36, 8}});
  for (const SizeRange& r : {SizeRange{4, 8192, 4}, SizeRange{2244, 2244, 1}}) {
    CHECK(parse_size_range(to_string(r), "t") == r);
  }
  CHECK(to_string({8, 8192, 8}) == "8..8192 step 8");
  CHECK(expand_sizes({{4, 12, 4}, {2244, 2244, 1}}) == std::vector<int>{4, 8, 12, 2244});
  CHECK(contains_size({{8, 8192, 8}}, 8184));
  CHECK_FALSE(contains_size({{8, 8192, 8}}, 8188));
  CHECK(contains(error_of([] { parse_size_range("4..10 step 4", "verified #1"); }), "verified #1: '4..10 step 4'"));
}

TEST_CASE("the record covers every default of the committed tables at every size served", "[verified][committed]") {
  const std::vector<FamilyTables> families = committed_tables();
  for (const FamilyTables& tables : families) {
    INFO(tables.family);
    const KernelFamily& family = FamilyRegistry::find(tables.family);
    REQUIRE(tables.defaults_record);
    const DefaultsRecord& record = *tables.defaults_record;
    const std::vector<int> served = served_sizes(family);
    for (const ConfigurationToVerify& c : configurations_to_verify(family, tables, served)) {
      INFO(c.configuration.variant);
      const VerifiedConfiguration* found = record.find(c.configuration.variant);
      REQUIRE(found != nullptr);  // else: rerun the command in the record's first line
      std::vector<int> accounted = expand_sizes(found->verified);
      for (int s : expand_sizes(found->not_valid)) accounted.push_back(s);
      for (const SizeFailure& f : found->failed) accounted.push_back(f.size);
      std::sort(accounted.begin(), accounted.end());
      CHECK(accounted == c.sizes);
      for (int s : expand_sizes(found->not_valid)) CHECK_FALSE(family.exclusion(c.configuration.params, s).empty());
    }
  }
  // layer_norm_modulate serves every multiple of 4 up to 8192, and its global default was verified at each.
  const FamilyTables& lnm = of_family(families, "layer_norm_modulate");
  CHECK(served_sizes(layer_norm_modulate_family()).size() == 2048);
  CHECK(lnm.defaults_record->find(lnm.global_default.variant)->verified == std::vector<SizeRange>{{4, 8192, 4}});
}

TEST_CASE("the committed record re-verifies on the CPU at a sample of its sizes", "[verified][committed][cpu]") {
  reverify_sample("layer_norm_modulate", {4, 2244, 8188});
  reverify_sample("qk_head_layer_norm", {4, 36, 124});
}

TEST_CASE("a failure is recorded with its size and first failure, and loses no other size", "[verified][cpu]") {
  const KernelFamily& family = layer_norm_modulate_family();
  const Configuration aten = family.global_default();
  const std::vector<ConfigurationToVerify> plan = {{aten, {"global default"}, {8, 12}}};
  DefaultsRecord like;
  like.shape = "sana-1024px";
  like.rows = 2;
  // Planted fault 2 skips a bf16 rounding: every size fails, each recorded.
  const DefaultsRecord faulty = verify_on_cpu(family, plan, like, {"EXACTUNE_PLANTED_FAULT=2"});
  REQUIRE(faulty.configurations.size() == 1);
  CHECK(faulty.configurations[0].verified.empty());
  REQUIRE(faulty.configurations[0].failed.size() == 2);
  CHECK(faulty.configurations[0].failed[0].size == 8);
  CHECK(contains(faulty.configurations[0].failed[1].first_failure, "incorrect"));
  // A size that cannot be a shape fails alone; the others are verified.
  std::vector<ConfigurationToVerify> with_bad_size = plan;
  with_bad_size[0].sizes = {6, 8, 12};
  const DefaultsRecord mixed = verify_on_cpu(family, with_bad_size, like);
  CHECK(mixed.configurations[0].verified == std::vector<SizeRange>{{8, 8, 1}, {12, 12, 1}});
  REQUIRE(mixed.configurations[0].failed.size() == 1);
  CHECK(mixed.configurations[0].failed[0].size == 6);
  CHECK(contains(mixed.configurations[0].failed[0].first_failure, "not a multiple of 4"));
  // And the record keeps both through its file.
  DefaultsRecord written = faulty;
  written.command = "exactune verify-defaults --family layer_norm_modulate --cpu --rows 2";
  written.family = family.name();
  written.reference_recipe = family.reference_recipe();
  written.configurations.push_back(mixed.configurations[0]);
  written.configurations.back().variant = "w4_r1_predicated_v8_reload_copy";  // one entry per variant
  const std::string yaml = to_defaults_yaml(written);
  INFO(yaml);
  CHECK(yaml.rfind(
            "# Generated by exactune verify-defaults --family layer_norm_modulate --cpu --rows 2; do not edit.\n", 0) ==
        0);
  CHECK(to_defaults_yaml(parse_defaults_yaml(yaml, "r.yaml")) == yaml);
  CHECK(contains(yaml, "      - size: 6\n        first_failure: \"no shape: hidden 6 is not a multiple of 4"));
}

namespace {

// A made-up H200 table of layer_norm_modulate: the device default (16-byte
// loads) verified at 1024 only, its 8-byte form at 1024 and 1028, the global
// default at 2048 only; a tuned bucket at 3072 with 16-byte loads, its
// narrowed form never verified.
FamilyTables partly_verified_tables() {
  std::vector<HeuristicsFile> files = three_gpu_files();
  FamilyTables tables = family_tables(std::vector<HeuristicsFile>{files[0]});
  DefaultsRecord record;
  record.command = "by hand for this test";
  record.family = "layer_norm_modulate";
  record.reference_recipe = layer_norm_modulate_family().reference_recipe();
  record.target = "host";
  record.configurations = {{full(kWide), {"default of NVIDIA H200"}, {{1024, 1024, 1}}, {}, {}},
                           {full(kWideNarrowed), {"narrowed"}, {{1024, 1028, 4}}, {}, {}},
                           {full(kAten), {"global default"}, {{2048, 2048, 1}}, {}, {}}};
  tables.defaults_record = record;
  return tables;
}

}  // namespace

TEST_CASE("select() returns the eager path wherever no verified configuration applies", "[verified][select]") {
  const FamilyTables tables = partly_verified_tables();
  const TempDir dir("verified-select");
  const std::string output =
      compile_and_run(dir.path(), kHeuristicsHeaderFile, emit_header(tables), R"(#include <cstdio>
#include "exactune_heuristics.hpp"
using namespace exactune_heuristics::layer_norm_modulate;
static_assert(runs_eager(select("NVIDIA H200", 9, 0, 132, 4096, 10, 16)), "constexpr");
void show(const char* name, int hidden, long long rows, int alignment, int cc_major = 9, int sms = 132) {
  const LaunchConfig c = select(name, cc_major, 0, sms, hidden, rows, alignment);
  std::printf("%d/%d: %s\n", hidden, alignment, runs_eager(c) ? "eager" : c.variant);
}
int main() {
  show("NVIDIA H200", 1024, 10, 16);  // the default, verified here
  show("NVIDIA H200", 1024, 10, 8);   // its narrowed form, verified here
  show("NVIDIA H200", 1024, 10, 4);   // below 8 bytes: the framework's kernel is another
  show("NVIDIA H200", 1028, 10, 16);  // 16-byte loads cannot take 1028: the narrowed form
  show("NVIDIA H200", 1032, 10, 16);  // nothing verified at 1032
  show("NVIDIA H200", 2048, 10, 16);  // neither default: the global one, verified here
  show("NVIDIA A30", 1024, 10, 16, 8, 56);  // no device: the global default, not verified at 1024
  show("NVIDIA H200", 2240, 37, 8);   // tuned: exact in its sweep
  show("NVIDIA H200", 3072, 4608, 16);  // tuned, 16-byte loads
  show("NVIDIA H200", 3072, 4608, 8);   // its narrowed form was not verified, nor the defaults at 3072
}
)");
  CHECK(output == fmt::format("1024/16: {0}\n1024/8: {1}\n1024/4: eager\n1028/16: {1}\n1032/16: eager\n"
                              "2048/16: {2}\n1024/16: eager\n2240/8: {2}\n3072/16: {0}\n3072/8: eager\n",
                              full(kWide), full(kWideNarrowed), full(kAten)));
  // The JSON carries the same pairs.
  const std::string json = emit_json(tables);
  CHECK(contains(json, fmt::format("{{\n      \"variant\": \"{}\",\n      \"first\": 1024,\n      \"last\": 1028,\n"
                                   "      \"step\": 4,\n      \"evidence\": \"exact on host (by hand for this test)\"",
                                   full(kWideNarrowed))));
  CHECK(contains(json, "\"5. No rule answers, or alignment is below 8: no configuration"));
}

TEST_CASE("the runtime serves no candidate outside its verified sizes or alignment", "[verified][runtime]") {
  const FamilyTables tables = partly_verified_tables();
  const RuntimeTables runtime = parse_runtime_tables(emit_tables_json({tables}), "t.json");
  const FamilyTable& table = *runtime.find("layer_norm_modulate");
  const DeviceResolution h200 = resolve_device(table, {"NVIDIA H200", 9, 0, 132});
  const auto chosen = [&](int hidden, std::int64_t rows, unsigned alignment, const DeviceResolution& at) {
    const CandidateChoice c = choose_candidate(layer_norm_modulate_family(), table, at, hidden, rows, alignment);
    return c.chosen ? c.chosen->variant : "eager" + c.refusals;
  };
  CHECK(chosen(1024, 10, 16, h200) == full(kWide));
  CHECK(chosen(1024, 10, 8, h200) == full(kWideNarrowed));
  CHECK(chosen(1028, 10, 16, h200) == full(kWideNarrowed));
  CHECK(chosen(2048, 10, 16, h200) == full(kAten));
  CHECK(chosen(3072, 4608, 16, h200) == full(kWide));
  const std::string none = chosen(1032, 10, 16, h200);
  CHECK(none.rfind("eager; device default " + full(kWide) + ": not verified at hidden 1032", 0) == 0);
  CHECK(contains(none, "; global default " + full(kAten) + ": not verified at hidden 1032"));
  CHECK(contains(chosen(3072, 4608, 8, h200), "16-byte aligned data"));
  CHECK(chosen(1024, 10, 16, resolve_device(table, {"NVIDIA T4", 7, 5, 40})).rfind("eager", 0) == 0);

  // Tables without the verified sizes are refused: serving from them would serve unproven sizes.
  std::string old = emit_tables_json({tables});
  old.replace(old.find("\"verified\": ["), 10, "\"unverified\"");
  CHECK(
      contains(error_of([&] { parse_runtime_tables(old, "old.json"); }), "old.json: families[0]: has no \"verified\""));
}

TEST_CASE("the committed tables: select() and the runtime agree, and serve verified pairs alone",
          "[verified][select][runtime][committed]") {
  // Every size served x the H200, an sm_90 GPU without a table and an sm_80 one x alignment 4, 8, 16 x three row
  // counts: the generated header's answer is the runtime's, and every answer was verified at its size.
  const std::vector<FamilyTables> families = committed_tables();
  const FamilyTables& tables = of_family(families, "layer_norm_modulate");
  const std::vector<VerifiedSizes> verified = verified_sizes(tables);
  const RuntimeTables runtime = parse_runtime_tables(embedded_file(kEmbeddedTablesPath), kEmbeddedTablesPath);
  const FamilyTable& table = *runtime.find("layer_norm_modulate");
  const TempDir dir("verified-committed");
  const std::string output =
      compile_and_run(dir.path(), kTablesHeaderFile, emit_tables_header(families), R"(#include <cstdio>
#include <initializer_list>
#include "exactune_tables.hpp"
using namespace exactune_heuristics::layer_norm_modulate;
int main() {
  struct Gpu { const char* name; int major, minor, sms; };
  const Gpu gpus[] = {{"NVIDIA H200", 9, 0, 132}, {"NVIDIA H20", 9, 0, 78}, {"NVIDIA A100", 8, 0, 108}};
  for (int hidden = 4; hidden <= 8192; hidden += 4)
    for (const Gpu& g : gpus)
      for (int alignment : {4, 8, 16})
        for (long long rows : {1LL, 300LL, 100000LL}) {
          const LaunchConfig c = select(g.name, g.major, g.minor, g.sms, hidden, rows, alignment);
          std::printf("%s\n", runs_eager(c) ? "eager" : c.variant);
        }
}
)");
  std::istringstream lines(output);
  const DeviceIdentity gpus[] = {{"NVIDIA H200", 9, 0, 132}, {"NVIDIA H20", 9, 0, 78}, {"NVIDIA A100", 8, 0, 108}};
  std::size_t served = 0, eager = 0, mismatches = 0;
  for (int hidden = 4; hidden <= 8192; hidden += 4) {
    const std::vector<Variant> valid = valid_variants(layer_norm_modulate_family(), hidden);
    for (const DeviceIdentity& gpu : gpus) {
      const DeviceResolution at = resolve_device(table, gpu);
      for (unsigned alignment : {4u, 8u, 16u}) {
        for (std::int64_t rows : {1, 300, 100000}) {
          std::string header_answer;
          std::getline(lines, header_answer);
          const CandidateChoice c =
              choose_candidate(layer_norm_modulate_family(), valid, table, at, hidden, rows, alignment);
          // The runtime's entry refuses alignment below 8 before it asks the tables.
          const std::string runtime_answer = c.chosen && alignment >= 8 ? c.chosen->variant : "eager";
          if (header_answer != runtime_answer && ++mismatches <= 5) {
            FAIL_CHECK(gpu.name << " hidden " << hidden << " alignment " << alignment << " rows " << rows
                                << ": select() " << header_answer << ", runtime " << runtime_answer);
          }
          if (header_answer == "eager") {
            ++eager;
            continue;
          }
          ++served;
          if (!is_verified(verified, header_answer, hidden)) FAIL_CHECK(header_answer << " unverified at " << hidden);
          const auto v =
              std::find_if(valid.begin(), valid.end(), [&](const Variant& x) { return x.name == header_answer; });
          REQUIRE(v != valid.end());
          if ((alignment < 16 || hidden % 8 != 0) && v->param("vector_bytes") != "8") {
            FAIL_CHECK(header_answer << " at hidden " << hidden << ", " << alignment << "-byte aligned");
          }
        }
      }
    }
  }
  CHECK(mismatches == 0);
  CHECK(served > 0);
  CHECK(eager >= 3 * 2048 * 3);  // at least every alignment of 4
}
