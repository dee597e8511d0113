// What `exactune export` takes from the tables (runtime/export_selection.hpp),
// with no GPU and no compiler: the tuned sizes and the default shapes' sizes,
// and at each every candidate the runtime can launch there, for every row
// bucket and alignment; for an architecture the tables name no GPU of, the
// global default; and every size the tables serve, what --every-size takes.
#include <exactune/family.hpp>

#include "catch.hpp"
#include "runtime/device_tables.hpp"
#include "runtime/export_selection.hpp"
#include "support/toy_tables.hpp"
#include "toy_family/toy_family.hpp"

using namespace exactune;

namespace {

std::vector<std::string> names(const std::vector<ExportedConfiguration>& configurations) {
  std::vector<std::string> out;
  for (const ExportedConfiguration& c : configurations) out.push_back(c.variant + "@" + std::to_string(c.size));
  return out;
}

}  // namespace

TEST_CASE("the export holds every candidate the runtime can launch at the tuned and the default shapes' sizes",
          "[runtime][export]") {
  const RuntimeTables tables = parse_runtime_tables(exactune_test::kToyTables, "toy tables");
  const FamilyTable& table = *tables.find("toy_double");
  const KernelFamily& toy = exactune_test::toy_family();
  CHECK(table_archs(table) == std::vector<std::string>{"sm_90"});

  // The tuned length, and the shapes' lengths the toy takes (6 is no multiple of 4).
  const std::vector<int> sizes = export_sizes(toy, table, "sm_90", {64, 6, 64});
  CHECK(sizes == std::vector<int>{64, 256});

  // At 64 no bucket: the default, and its narrowing for 8-byte aligned data.
  // At 256 each bucket's choice, the small one narrowed to the default's fallback.
  CHECK(names(served_configurations(toy, table, "sm_90", sizes)) ==
        std::vector<std::string>{"t64_v8_right@64", "t64_v4_right@64", "t128_v8_right@256", "t64_v4_right@256",
                                 "t256_v4_right@256"});

  // A GPU of an architecture the tables name none of gets the global default.
  CHECK(export_sizes(toy, table, "sm_100", {64}) == std::vector<int>{64});
  CHECK(names(served_configurations(toy, table, "sm_100", {64, 256})) ==
        std::vector<std::string>{"t32_v4_right@64", "t32_v4_right@256"});
}

TEST_CASE("every size the tables serve is every size a candidate was verified at", "[runtime][export]") {
  const RuntimeTables tables = parse_runtime_tables(exactune_test::kToyTables, "toy tables");
  const std::vector<int> every = every_served_size(exactune_test::toy_family(), *tables.find("toy_double"), "sm_90");
  REQUIRE(every.size() == 2048);  // the global default's 4..8192 step 4 holds the others
  CHECK(every.front() == 4);
  CHECK(every.back() == 8192);
}
