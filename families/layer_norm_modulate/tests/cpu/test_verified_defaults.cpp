// The family's committed record of verified defaults
// (reports/tables/<family>/verified_defaults.yaml, exactune verify-defaults):
// re-verified at a sample of its sizes on the CPU, covering every multiple of
// 4 up to 8192 for the global default, and the committed tables' select() and
// runtime agreeing and serving verified pairs alone. The core's side (a
// failure recorded without losing other sizes, select() and the runtime
// refusing what was not verified) is tested in tests/sweep/ and tests/report/.
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
#include <exactune/space.hpp>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/report_writer.hpp"
#include "runtime/device_tables.hpp"
#include "runtime/runtime_tables.hpp"
#include "shapes/shape_file.hpp"
#include "store/defaults_record.hpp"
#include "store/family_tables.hpp"
#include "support/host_probe.hpp"
#include "support/scratch_directory.hpp"
#include "sweep/defaults_verification.hpp"
#include "util/embedded_files.hpp"

using namespace exactune;
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
                             const DefaultsRecord& like) {
  const CompileCache cache(CompileCache::default_directory());
  CpuBackend cpu(2);
  const ShapeSet set = default_shapes(family);
  const auto shape =
      std::find_if(set.shapes.begin(), set.shapes.end(), [&](const Shape& s) { return s.name == like.shape; });
  REQUIRE(shape != set.shapes.end());
  DefaultsVerificationOptions options;
  options.rows = static_cast<int>(like.rows);
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

TEST_CASE("layer_norm_modulate serves every multiple of 4 up to 8192, and its global default was verified at each",
          "[verified][committed]") {
  const std::vector<FamilyTables> families = committed_tables();
  const FamilyTables& lnm = of_family(families, "layer_norm_modulate");
  REQUIRE(lnm.defaults_record);
  CHECK(served_sizes(layer_norm_modulate_family()).size() == 2048);
  CHECK(lnm.defaults_record->find(lnm.global_default.variant)->verified == std::vector<SizeRange>{{4, 8192, 4}});
}

TEST_CASE("the committed record re-verifies on the CPU at a sample of its sizes", "[verified][committed][cpu]") {
  reverify_sample("layer_norm_modulate", {4, 2244, 8188});
  reverify_sample("qk_head_layer_norm", {4, 36, 124});
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
  const ScratchDirectory dir("verified-committed");
  const std::string output =
      host_probe::compile_and_run(dir.path(), {{kTablesHeaderFile, emit_tables_header(families)}},
                                  R"(#include <cstdio>
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
          const std::string device = at.device ? at.device->identity.name : std::string();
          if (!is_verified(verified, header_answer, hidden, device, at.device && own_record(tables, device))) {
            FAIL_CHECK(header_answer << " unverified at " << hidden << " for " << gpu.name);
          }
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
