// The core's contract with a family, shown with a toy one (tests/toy_family):
// the registry finds it, the space is enumerated with reasons, its kernels
// compile for a GPU architecture and for the host, and the CPU verify stage
// passes its right variants and catches the one wrong on purpose. None of this
// names a real family: a new family plugs in the same way.
#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/shapes.hpp>
#include <exactune/space.hpp>

#include "catch.hpp"
#include "compile/compiler.hpp"
#include "shapes/shape_file.hpp"
#include "space/compile_plan.hpp"
#include "support/cpu_verification.hpp"
#include "toy_family/toy_family.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;

TEST_CASE("the registry finds a family by name and names the known ones otherwise") {
  CHECK(&FamilyRegistry::find("toy_double") == &exactune_test::toy_family());
  try {
    FamilyRegistry::find("no_such_family");
    FAIL("found a family that does not exist");
  } catch (const exactune::input_error& e) {
    CHECK(std::string(e.what()).find("toy_double") != std::string::npos);
  }
}

TEST_CASE("a family's shape file is read with its own parameters, errors at file:line") {
  const KernelFamily& toy = exactune_test::toy_family();
  const ShapeSet set = parse_shapes(toy, "shapes:\n  - name: a\n    model: m\n    rows: 3\n    length: 40\n", "t.yaml");
  REQUIRE(set.shapes.size() == 1);
  CHECK(set.shapes[0].size == 40);
  CHECK(set.shapes[0].rows() == 3);
  CHECK(set.shapes[0].describe_parameters() == "rows=3, length=40, scale=2.0");
  try {
    parse_shapes(toy, "shapes:\n  - name: a\n    model: m\n    rows: 3\n    length: -1\n", "t.yaml");
    FAIL("a negative length parsed");
  } catch (const exactune::input_error& e) {
    CHECK(std::string(e.what()) == "t.yaml:5: length must be > 0");
  }
}

TEST_CASE("the space lists every combination, excluded ones with the family's reason") {
  const std::vector<Candidate> space = enumerate_space(exactune_test::toy_family(), 40);
  REQUIRE(space.size() == 20);
  CHECK(space[0].variant.name == "t32_v4_right");
  CHECK(space[2].variant.name == "t32_v8_right");
  CHECK(space[2].valid());
  CHECK(space[4].variant.name == "t64_v4_right");
  CHECK(space[4].excluded_because == "64 threads for a row of 40: some would have nothing");
  CHECK(enumerate_space(exactune_test::toy_family(), 36)[2].excluded_because ==
        "8 elements a step cannot tile a row of 36");
  CHECK(valid_variants(exactune_test::toy_family(), 40).size() == 4);
}

TEST_CASE("a family's kernels compile with NVRTC for sm_90 and for the host") {
  const CompileCache cache(CompileCache::default_directory());
  for (const std::string target : {"sm_90", "host"}) {
    const CompilePlan plan = plan_compiles(exactune_test::toy_family(), {40}, {target}, "*");
    std::vector<CompileRequest> requests = plan.support;
    requests.insert(requests.end(), plan.variants.begin(), plan.variants.end());
    for (const CompileOutcome& outcome : compile_all(requests, cache)) {
      INFO(target << " " << outcome.request.name << "\n" << outcome.log);
      CHECK(outcome.ok);
    }
  }
}

TEST_CASE("CPU verify passes the right variants and catches the planted wrong one") {
  const VerifyStageResult result =
      exactune_test::verify_on_cpu(exactune_test::toy_family(), {exactune_test::toy_shape("toy", 3, 40)}, "*");
  REQUIRE(result.records.size() == 4);
  for (const VerifyRecord& r : result.records) {
    INFO(r.variant << ": " << r.message);
    if (r.variant.ends_with("_right")) {
      CHECK(r.disposition == Disposition::passed);
    } else {
      CHECK(r.variant.ends_with("_planted_wrong"));
      CHECK(r.disposition == Disposition::incorrect);
      CHECK(r.mismatches == 3);  // the last element of each of the 3 rows
    }
  }
}
