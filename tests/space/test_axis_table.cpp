// The axis table a family spells its axes in (include/exactune/axis_table.hpp),
// shown on a toy table of two parts: the names it gives and reads back, the
// axes a part holds, the name expressions of its kernels, the config struct it
// decodes into, and the tables it refuses because they would name or compile
// two combinations alike.
#include <exactune/axis_table.hpp>
#include <exactune/error.hpp>

#include "catch.hpp"

using namespace exactune;

namespace {

enum class Path { direct, staged };

struct ToyConfig {
  Path path = Path::direct;
  int threads = 32;
  bool unrolled = false;
  int stages = 1;
};

std::vector<TypedAxisRow<ToyConfig>> toy_rows() {
  return {
      axis_row("path", "how data reaches the kernel", &ToyConfig::path,
               {{"direct", Path::direct, ""}, {"staged", Path::staged, ""}}),
      // The staged kernel counts warps.
      axis_row("threads", "threads per block", &ToyConfig::threads, numerals({32, 64}))
          .spelled_in("staged", {"1", "2"}),
      axis_row("unroll", "whether the loop is unrolled", &ToyConfig::unrolled,
               {{"rolled", false, "toy::rolled"}, {"unrolled", true, "toy::unrolled"}}),
      axis_row("stages", "staged path: buffers in flight", &ToyConfig::stages, numerals({1, 2, 3})),
  };
}

std::vector<AxisPart> toy_parts() {
  return {
      AxisPart{.name = "direct",
               .name_layout = {"direct_t{threads}_{unroll}", unless_first("_s{stages}")},
               .held = {{{"stages"}, "a direct path has no stages"}},
               .kernel = KernelTemplate{"toy.cuh", "&toy::direct", {"threads", "unroll"}}},
      AxisPart{.name = "staged",
               .name_layout = {"staged{stages}_t{threads}", unless_first("_{unroll}")},
               .kernel = KernelTemplate{"toy.cuh", "&toy::staged", {"threads", "stages", "unroll"}}},
  };
}

const TypedAxisTable<ToyConfig>& toy_table() {
  static const TypedAxisTable<ToyConfig> table(toy_rows(), "path", toy_parts());
  return table;
}

std::vector<Param> params(const std::string& path, const std::string& threads, const std::string& unroll,
                          const std::string& stages) {
  return {{"path", path}, {"threads", threads}, {"unroll", unroll}, {"stages", stages}};
}

// Every combination of the toy table's values, first axis slowest.
std::vector<std::vector<Param>> every_combination() {
  std::vector<std::vector<Param>> all;
  for (const char* path : {"direct", "staged"})
    for (const char* threads : {"32", "64"})
      for (const char* unroll : {"rolled", "unrolled"})
        for (const char* stages : {"1", "2", "3"}) all.push_back(params(path, threads, unroll, stages));
  return all;
}

// Whether the table of these rows and parts is refused with a message that says `why`.
bool refused(const std::string& why, std::vector<TypedAxisRow<ToyConfig>> rows, std::vector<AxisPart> parts) {
  try {
    TypedAxisTable<ToyConfig> table(std::move(rows), "path", std::move(parts));
  } catch (const error& e) {
    UNSCOPED_INFO(e.what());  // shown with the check that fails
    return std::string(e.what()).find(why) != std::string::npos;
  }
  return false;
}

}  // namespace

TEST_CASE("a part names its variants by its layout, leaving out segments whose axes hold their first values") {
  const AxisTable& table = toy_table();
  CHECK(table.variant_name(params("direct", "32", "rolled", "1")) == "direct_t32_rolled");
  CHECK(table.variant_name(params("direct", "64", "unrolled", "2")) == "direct_t64_unrolled_s2");
  CHECK(table.variant_name(params("staged", "32", "rolled", "1")) == "staged1_t32");
  CHECK(table.variant_name(params("staged", "64", "unrolled", "3")) == "staged3_t64_unrolled");
}

TEST_CASE("every name reads back to its values, and a name no combination has reads as none") {
  const AxisTable& table = toy_table();
  for (const std::vector<Param>& p : every_combination()) {
    INFO(table.variant_name(p));
    CHECK(table.parse_name(table.variant_name(p)) == p);
  }
  CHECK_FALSE(table.parse_name("direct_t48_rolled"));
  CHECK_FALSE(table.parse_name("staged1_t32_rolled"));  // a first value its layout leaves out
  CHECK_FALSE(table.parse_name("direct_t32_rolled_"));
}

TEST_CASE("values decode into the config struct and encode back") {
  const ToyConfig c = toy_table().decode(params("staged", "64", "unrolled", "3"));
  CHECK(c.path == Path::staged);
  CHECK(c.threads == 64);
  CHECK(c.unrolled);
  CHECK(c.stages == 3);
  for (const std::vector<Param>& p : every_combination()) CHECK(toy_table().encode(toy_table().decode(p)) == p);
  ToyConfig odd;
  odd.threads = 48;
  CHECK_THROWS_AS(toy_table().encode(odd), error);
  CHECK_THROWS_AS(toy_table().decode(params("direct", "48", "rolled", "1")), error);
}

TEST_CASE("a part's held axes apply nowhere in it, and setting one excludes the combination") {
  const AxisTable& table = toy_table();
  CHECK_FALSE(table.applies("stages", params("direct", "32", "rolled", "1")));
  CHECK(table.applies("stages", params("staged", "32", "rolled", "1")));
  CHECK(table.applies("threads", params("direct", "32", "rolled", "1")));
  CHECK(table.held_off(params("direct", "32", "rolled", "1")).empty());
  CHECK(table.held_off(params("direct", "32", "rolled", "3")) == "a direct path has no stages");
  CHECK(table.held_off(params("staged", "32", "rolled", "3")).empty());
  CHECK_THROWS_AS(table.applies("no_such_axis", params("direct", "32", "rolled", "1")), error);
}

TEST_CASE("a part's kernel takes the size, then each argument's spelling in that part") {
  const AxisTable& table = toy_table();
  CHECK(table.name_expression(params("direct", "64", "unrolled", "1"), 40) == "&toy::direct<40, 64, toy::unrolled>");
  CHECK(table.name_expression(params("staged", "64", "rolled", "3"), 40) == "&toy::staged<40, 2, 3, toy::rolled>");
  const CompileRequest r =
      table.request(Variant{"staged3_t64", params("staged", "64", "rolled", "3")}, "staged3_t64@40", 40, "sm_90");
  CHECK(r.name == "staged3_t64@40");
  CHECK(r.main_file == "toy.cuh");
  CHECK(r.name_expression == "&toy::staged<40, 2, 3, toy::rolled>");
  CHECK(r.target == "sm_90");
}

TEST_CASE("a part without a kernel of its own, or a value without a spelling, has no name expression") {
  std::vector<AxisPart> parts = toy_parts();
  parts[1].kernel.reset();
  std::vector<TypedAxisRow<ToyConfig>> rows = toy_rows();
  rows[2].row.in_template = {"toy::rolled", ""};
  const TypedAxisTable<ToyConfig> table(std::move(rows), "path", std::move(parts));
  CHECK_THROWS_AS(table.name_expression(params("staged", "32", "rolled", "1"), 40), error);
  CHECK_THROWS_AS(table.name_expression(params("direct", "32", "unrolled", "1"), 40), error);
  CHECK(table.name_expression(params("direct", "32", "rolled", "1"), 40) == "&toy::direct<40, 32, toy::rolled>");
}

TEST_CASE("a table that would name or compile two combinations alike is refused") {
  CHECK_NOTHROW(TypedAxisTable<ToyConfig>(toy_rows(), "path", toy_parts()));
  SECTION("two values spelled alike as a kernel's argument") {
    std::vector<TypedAxisRow<ToyConfig>> rows = toy_rows();
    rows[2].row.in_template = {"toy::rolled", "toy::rolled"};
    CHECK(refused("spells two values of axis 'unroll'", rows, toy_parts()));
    rows = toy_rows();
    rows[1].row.in_template_of_part["staged"] = {"1", "1"};
    CHECK(refused("part 'staged' spells two values of axis 'threads'", rows, toy_parts()));
  }
  SECTION("a value repeated") {
    std::vector<TypedAxisRow<ToyConfig>> rows = toy_rows();
    rows[3].row.axis.values = {"1", "2", "2"};
    CHECK(refused("axis 'stages' repeats a value", rows, toy_parts()));
  }
  SECTION("a layout that leaves an axis out, or names one twice") {
    std::vector<AxisPart> parts = toy_parts();
    parts[1].name_layout = {"staged{stages}"};
    CHECK(refused("part 'staged' leaves axis 'threads' out", toy_rows(), parts));
    parts[1].name_layout = {"staged{stages}_t{threads}_{unroll}_{threads}"};
    CHECK(refused("names axis 'threads' twice", toy_rows(), parts));
  }
  SECTION("a held axis that every name shows, or that the kernel takes") {
    std::vector<AxisPart> parts = toy_parts();
    parts[0].name_layout = {"direct_t{threads}_{unroll}_s{stages}"};
    CHECK(refused("holds axis 'stages' but names it in every variant", toy_rows(), parts));
    parts = toy_parts();
    parts[0].kernel->arguments.push_back("stages");
    CHECK(refused("holds axis 'stages' but passes it to its kernel", toy_rows(), parts));
  }
  SECTION("parts that are not the part axis's values, and axes the table does not have") {
    std::vector<AxisPart> parts = toy_parts();
    parts.pop_back();
    CHECK(refused("the parts must be the values of axis 'path'", toy_rows(), parts));
    parts = toy_parts();
    parts[0].name_layout.push_back("_{no_such_axis}");
    CHECK(refused("no axis 'no_such_axis'", toy_rows(), parts));
    parts = toy_parts();
    parts[0].name_layout.push_back("_{unclosed");
    CHECK(refused("without its", toy_rows(), parts));
  }
}
