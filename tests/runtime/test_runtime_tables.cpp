// The runtime's tables without a GPU: reading exactune_tables.json (errors
// name the file and the JSON path), resolving a GPU (exact name, then the same
// compute capability and SM count, then the same architecture, then none), and
// the candidates tried for a size and row count, best first. The tables here
// are made up; the built-in ones are checked to cover every registered family.
#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>

#include "catch.hpp"
#include "runtime/device_tables.hpp"
#include "runtime/runtime_tables.hpp"
#include "support/committed_sweeps.hpp"
#include "util/embedded_files.hpp"

using namespace exactune;

namespace {

// Two GPUs of one architecture (sm_90, 132 and 114 SMs): the first with a
// tuned size of two buckets, the second with none.
const char* const kTables = R"({
  "generated": "by hand for this test",
  "format_version": 1,
  "families": [{
    "family": "toy",
    "select": {"size": "length"},
    "devices": [
      {"name": "GPU A", "arch": "sm_90", "cc_major": 9, "cc_minor": 0, "sm_count": 132,
       "default": {"variant": "a_default_v16"},
       "default_fallbacks": [{"config": {"variant": "a_default_v8"}}],
       "table": [
         {"length": 256, "max_rows": 100, "config": {"variant": "a_small"}},
         {"length": 256, "max_rows": null, "config": {"variant": "a_large"},
          "fallbacks": [{"config": {"variant": "a_large_narrow"}}]}]},
      {"name": "GPU B", "arch": "sm_90", "cc_major": 9, "cc_minor": 0, "sm_count": 114,
       "default": {"variant": "b_default"}, "table": []}],
    "global_default": {"variant": "global"},
    "verified": [{"variant": "a_small", "first": 256, "last": 256, "step": 1},
                 {"variant": "global", "first": 4, "last": 8192, "step": 4}]}]
})";

std::vector<std::string> variants(const std::vector<TableCandidate>& candidates) {
  std::vector<std::string> names;
  for (const TableCandidate& c : candidates) names.push_back(c.variant);
  return names;
}

}  // namespace

TEST_CASE("the runtime resolves a GPU by name, then model, then architecture, then not at all", "[runtime]") {
  const RuntimeTables tables = parse_runtime_tables(kTables, "tables.json");
  const FamilyTable& toy = *tables.find("toy");
  CHECK(tables.find("other") == nullptr);

  const DeviceResolution by_name = resolve_device(toy, {"GPU B", 9, 0, 132});
  CHECK(by_name.match == DeviceMatch::exact_name);
  CHECK(by_name.device->identity.name == "GPU B");  // the name wins over another entry's SM count

  const DeviceResolution by_model = resolve_device(toy, {"GPU A NVL", 9, 0, 132});
  CHECK(by_model.match == DeviceMatch::same_model);
  CHECK(by_model.device->identity.name == "GPU A");

  const DeviceResolution by_arch = resolve_device(toy, {"GPU C", 9, 0, 78});
  CHECK(by_arch.match == DeviceMatch::same_architecture);
  CHECK(by_arch.device->identity.name == "GPU A");

  const DeviceResolution none = resolve_device(toy, {"GPU D", 8, 0, 108});
  CHECK(none.match == DeviceMatch::none);
  CHECK(none.device == nullptr);
  CHECK(none.describe().find("global default") != std::string::npos);
}

TEST_CASE("verified sizes are ranges of one variant", "[runtime]") {
  const RuntimeTables tables = parse_runtime_tables(kTables, "tables.json");
  const FamilyTable& toy = *tables.find("toy");
  CHECK(toy.verified_at("a_small", 256, nullptr));
  CHECK_FALSE(toy.verified_at("a_small", 260, nullptr));
  CHECK(toy.verified_at("global", 8192, nullptr));
  CHECK_FALSE(toy.verified_at("global", 8190, nullptr));
  CHECK_FALSE(toy.verified_at("global", 8196, nullptr));
  CHECK_FALSE(toy.verified_at("a_large", 256, nullptr));
}

TEST_CASE("a GPU with a record of its own is served from evidence for it alone", "[runtime]") {
  // GPU R verified its defaults itself; the host's record verified the global default everywhere.
  const RuntimeTables tables = parse_runtime_tables(R"({"generated": "by hand", "format_version": 1, "families": [{
    "family": "toy", "select": {"size": "length"},
    "devices": [
      {"name": "GPU A", "arch": "sm_90", "cc_major": 9, "cc_minor": 0, "sm_count": 132,
       "default": {"variant": "wide"}, "table": []},
      {"name": "GPU R", "arch": "sm_89", "cc_major": 8, "cc_minor": 9, "sm_count": 84,
       "default": {"variant": "wide"}, "own_record": true, "table": []}],
    "global_default": {"variant": "safe"},
    "verified": [{"variant": "wide", "first": 512, "last": 2048, "step": 512, "device": ""},
                 {"variant": "safe", "first": 8, "last": 4096, "step": 8, "device": ""},
                 {"variant": "wide", "first": 512, "last": 512, "step": 1, "device": "GPU R"},
                 {"variant": "safe", "first": 8, "last": 64, "step": 8, "device": "GPU R"}]}]})",
                                                    "tables.json");
  const FamilyTable& toy = *tables.find("toy");
  const TableDevice* a = resolve_device(toy, {"GPU A", 9, 0, 132}).device;
  const TableDevice* r = resolve_device(toy, {"GPU R", 8, 9, 84}).device;
  REQUIRE(a != nullptr);
  REQUIRE(r != nullptr);
  CHECK(r->own_record);
  CHECK_FALSE(a->own_record);
  CHECK(toy.verified_at("wide", 1024, a));  // the host's record, for a GPU without its own
  CHECK(toy.verified_at("wide", 512, r));
  CHECK_FALSE(toy.verified_at("wide", 1024, r));  // the host's record serves no GPU with its own
  CHECK_FALSE(toy.verified_at("safe", 1024, r));
  CHECK(toy.verified_at("safe", 1024, nullptr));  // a GPU no table knows: the host's record
  // Through the candidates: GPU R at 1024 runs eager, with why; at 512 its default.
  const DeviceResolution at_r = resolve_device(toy, {"GPU R", 8, 9, 84});
  const DeviceResolution like_r = resolve_device(toy, {"GPU S", 8, 9, 20});  // resolved to R by architecture
  CHECK(like_r.device == r);
  CHECK(toy.verified_at("wide", 512, like_r.device));
  CHECK_FALSE(toy.verified_at("wide", 1024, like_r.device));
  CHECK(table_candidates(toy, at_r, 1024, 10).front().variant == "wide");
}

TEST_CASE("plans are keyed by tuned bucket: every row count of a bucket gets the same candidates", "[runtime]") {
  const RuntimeTables tables = parse_runtime_tables(kTables, "tables.json");
  const FamilyTable& toy = *tables.find("toy");
  const DeviceResolution a = resolve_device(toy, {"GPU A", 9, 0, 132});
  const std::vector<std::optional<std::int64_t>> bounds = bucket_bounds(a, 256);
  REQUIRE(bounds == std::vector<std::optional<std::int64_t>>{100, std::nullopt});
  CHECK(bucket_of(bounds, 1) == 0);
  CHECK(bucket_of(bounds, 100) == 0);
  CHECK(bucket_of(bounds, 101) == 1);
  CHECK(bucket_of(bounds, std::int64_t{1} << 40) == 1);
  // Row counts of one bucket, the same candidates: one plan serves them all.
  const auto variants = [&](std::int64_t rows) {
    std::vector<std::string> names;
    for (const TableCandidate& c : table_candidates(toy, a, 256, rows)) names.push_back(c.variant);
    return names;
  };
  for (std::int64_t rows : {1, 37, 99}) CHECK(variants(rows) == variants(100));
  for (std::int64_t rows : {101, 4096, 1000000}) CHECK(variants(rows) == variants(101));
  CHECK(variants(100) != variants(101));
  // No bucket at another size, on a GPU without buckets, or on another SM count of the architecture.
  CHECK(bucket_bounds(a, 512).empty());
  CHECK(bucket_bounds(resolve_device(toy, {"GPU B", 9, 0, 114}), 256).empty());
  CHECK(bucket_bounds(resolve_device(toy, {"GPU C", 9, 0, 78}), 256).empty());
  CHECK(bucket_of({}, 12345) == 0);
  // Past every bounded bucket and no unbounded one: a bucket of its own, with no tuned candidate.
  CHECK(bucket_of({10, 20}, 21) == 2);
}

TEST_CASE("the candidates follow the fallback chain, best first, without repeats", "[runtime]") {
  const RuntimeTables tables = parse_runtime_tables(kTables, "tables.json");
  const FamilyTable& toy = *tables.find("toy");
  const DeviceResolution a = resolve_device(toy, {"GPU A", 9, 0, 132});

  CHECK(variants(table_candidates(toy, a, 256, 100)) ==
        std::vector<std::string>{"a_small", "a_default_v16", "a_default_v8", "global"});
  CHECK(variants(table_candidates(toy, a, 256, 101)) ==
        std::vector<std::string>{"a_large", "a_large_narrow", "a_default_v16", "a_default_v8", "global"});
  CHECK(table_candidates(toy, a, 256, 101).front().step == CandidateStep::tuned_bucket);
  CHECK(table_candidates(toy, a, 256, 101)[1].step == CandidateStep::tuned_bucket_fallback);
  // An untuned size starts at the device default.
  CHECK(variants(table_candidates(toy, a, 260, 5)) ==
        std::vector<std::string>{"a_default_v16", "a_default_v8", "global"});
  // Another SM count keeps only the default: the buckets were measured on another model.
  const DeviceResolution arch_only = resolve_device(toy, {"GPU C", 9, 0, 78});
  CHECK(variants(table_candidates(toy, arch_only, 256, 100)) ==
        std::vector<std::string>{"a_default_v16", "a_default_v8", "global"});
  CHECK(variants(table_candidates(toy, resolve_device(toy, {"GPU D", 8, 0, 108}), 256, 1)) ==
        std::vector<std::string>{"global"});
}

TEST_CASE("malformed tables are refused with the file and the JSON path", "[runtime]") {
  const auto message = [](std::string text) {
    try {
      parse_runtime_tables(text, "t.json");
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message("{").find("t.json: not valid JSON") != std::string::npos);
  std::string no_name = kTables;
  no_name.replace(no_name.find("\"name\": \"GPU B\""), 15, "\"nam\": \"GPU B\"");
  CHECK(message(no_name) == "t.json: families[0].devices[1]: has no \"name\"");
  std::string descending = kTables;
  descending.replace(descending.find("\"max_rows\": null"), 16, "\"max_rows\": 50");
  CHECK(message(descending).find("families[0].devices[0].table[1]: buckets of one size must ascend") !=
        std::string::npos);
  std::string zero_sms = kTables;
  zero_sms.replace(zero_sms.find("\"sm_count\": 114"), 15, "\"sm_count\": 0");
  CHECK(message(zero_sms) == "t.json: families[0].devices[1].sm_count: 0 is not in 1..100000");
  std::string backwards = kTables;
  backwards.replace(backwards.find("\"last\": 8192"), 12, "\"last\": 3");
  CHECK(message(backwards) == "t.json: families[0].verified[1].last: 3 is not in 4..2147483647");
}

TEST_CASE("the built-in tables read, and cover every swept family's GPUs with valid variants", "[runtime]") {
  const RuntimeTables tables = parse_runtime_tables(embedded_file(kEmbeddedTablesPath), kEmbeddedTablesPath);
  for (const KernelFamily* family : FamilyRegistry::all()) {
    if (family->name() == "toy_double") continue;  // the core suite's test family has no table
    INFO(family->name());
    const FamilyTable* table = tables.find(family->name());
    // A family before its first committed sweep has no table, and is served nothing.
    if (!exactune_test::has_committed_sweep(*family)) {
      CHECK(table == nullptr);
      continue;
    }
    REQUIRE(table != nullptr);
    CHECK(table->size_parameter == family->size_parameter());
    CHECK(!table->devices.empty());
    CHECK(table->global_default == family->global_default().variant);
  }
}
