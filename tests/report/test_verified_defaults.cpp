// Tables serve only what was proven: with a record of verified defaults
// (reports/tables/<family>/verified_defaults.yaml, exactune verify-defaults),
// the generated select() and the runtime's choice return no configuration at
// a size or alignment it was not verified for (on a made-up table of the toy
// family, support/recorded_sweep.hpp).
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "report/heuristics_emitter.hpp"
#include "runtime/device_tables.hpp"
#include "runtime/runtime_tables.hpp"
#include "store/defaults_record.hpp"
#include "store/family_tables.hpp"
#include "support/recorded_sweep.hpp"
#include "toy_family/toy_family.hpp"

using namespace exactune;
using namespace recorded;

namespace {

// A made-up H200 table of the toy: the device default (8 elements a step)
// verified at length 1024 only, its 4-element form at 1024 and 1028, the
// global default at 2048 only; a tuned bucket at 3072 with 8 elements a step,
// its narrowed form never verified.
FamilyTables partly_verified_tables() {
  std::vector<HeuristicsFile> files = three_gpu_files();
  FamilyTables tables = family_tables(std::vector<HeuristicsFile>{files[0]});
  DefaultsRecord record;
  record.command = "by hand for this test";
  record.family = "toy_double";
  record.reference_recipe = exactune_test::toy_family().reference_recipe();
  record.target = "host";
  record.configurations = {{kWide, {"default of NVIDIA H200"}, {{1024, 1024, 1}}, {}, {}},
                           {kWideNarrowed, {"narrowed"}, {{1024, 1028, 4}}, {}, {}},
                           {kDefault, {"global default"}, {{2048, 2048, 1}}, {}, {}}};
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
using namespace exactune_heuristics::toy_double;
static_assert(runs_eager(select("NVIDIA H200", 9, 0, 132, 4096, 10, 16)), "constexpr");
void show(const char* name, int length, long long rows, int alignment, int cc_major = 9, int sms = 132) {
  const LaunchConfig c = select(name, cc_major, 0, sms, length, rows, alignment);
  std::printf("%d/%d: %s\n", length, alignment, runs_eager(c) ? "eager" : c.variant);
}
int main() {
  show("NVIDIA H200", 1024, 10, 16);  // the default, verified here
  show("NVIDIA H200", 1024, 10, 8);   // its narrowed form, verified here
  show("NVIDIA H200", 1024, 10, 4);   // below 8 bytes: the framework's kernel is another
  show("NVIDIA H200", 1028, 10, 16);  // 8 elements a step cannot take 1028: the narrowed form
  show("NVIDIA H200", 1032, 10, 16);  // nothing verified at 1032
  show("NVIDIA H200", 2048, 10, 16);  // neither default: the global one, verified here
  show("NVIDIA A30", 1024, 10, 16, 8, 56);  // no device: the global default, not verified at 1024
  show("NVIDIA H200", 2240, 37, 8);   // tuned: exact in its sweep
  show("NVIDIA H200", 3072, 4608, 16);  // tuned, 8 elements a step
  show("NVIDIA H200", 3072, 4608, 8);   // its narrowed form was not verified, nor the defaults at 3072
}
)");
  CHECK(output == fmt::format("1024/16: {0}\n1024/8: {1}\n1024/4: eager\n1028/16: {1}\n1032/16: eager\n"
                              "2048/16: {2}\n1024/16: eager\n2240/8: {2}\n3072/16: {0}\n3072/8: eager\n",
                              kWide, kWideNarrowed, kDefault));
  // The JSON carries the same pairs.
  const std::string json = emit_json(tables);
  CHECK(contains(json, fmt::format("{{\n      \"variant\": \"{}\",\n      \"first\": 1024,\n      \"last\": 1028,\n"
                                   "      \"step\": 4,\n      \"evidence\": \"exact on host (by hand for this test)\"",
                                   kWideNarrowed)));
  CHECK(contains(json, "\"5. No rule answers, or alignment is below 8: no configuration"));
}

TEST_CASE("the runtime serves no candidate outside its verified sizes or alignment", "[verified][runtime]") {
  const FamilyTables tables = partly_verified_tables();
  const RuntimeTables runtime = parse_runtime_tables(emit_tables_json({tables}), "t.json");
  const FamilyTable& table = *runtime.find("toy_double");
  const DeviceResolution h200 = resolve_device(table, {"NVIDIA H200", 9, 0, 132});
  const auto chosen = [&](int length, std::int64_t rows, unsigned alignment, const DeviceResolution& at) {
    const CandidateChoice c = choose_candidate(exactune_test::toy_family(), table, at, length, rows, alignment);
    return c.chosen ? c.chosen->variant : "eager" + c.refusals;
  };
  CHECK(chosen(1024, 10, 16, h200) == kWide);
  CHECK(chosen(1024, 10, 8, h200) == kWideNarrowed);
  CHECK(chosen(1028, 10, 16, h200) == kWideNarrowed);
  CHECK(chosen(2048, 10, 16, h200) == kDefault);
  CHECK(chosen(3072, 4608, 16, h200) == kWide);
  const std::string none = chosen(1032, 10, 16, h200);
  CHECK(none.rfind(fmt::format("eager; device default {}: not verified at length 1032", kWide), 0) == 0);
  CHECK(contains(none, fmt::format("; global default {}: not verified at length 1032", kDefault)));
  CHECK(contains(chosen(3072, 4608, 8, h200), "16-byte aligned data"));
  CHECK(chosen(1024, 10, 16, resolve_device(table, {"NVIDIA T4", 7, 5, 40})).rfind("eager", 0) == 0);

  // Tables without the verified sizes are refused: serving from them would serve unproven sizes.
  std::string old = emit_tables_json({tables});
  old.replace(old.find("\"verified\": ["), 10, "\"unverified\"");
  CHECK(
      contains(error_of([&] { parse_runtime_tables(old, "old.json"); }), "old.json: families[0]: has no \"verified\""));
}
