// What `exactune sweep` decides before it runs (sweep/sweep_scope.hpp,
// sweep/sweep_plan.hpp, sweep/sweep_without_gpu_plan.hpp), without a GPU: the
// pairs a shard covers, the folder a narrowed sweep writes to, the options
// run_sweep gets, the kernels compiled without a GPU, and the journal's
// identity, whose every key a resumed sweep must find again as it was.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "shapes/shape_file.hpp"
#include "sweep/sweep_plan.hpp"
#include "sweep/sweep_scope.hpp"
#include "sweep/sweep_without_gpu_plan.hpp"
#include "toy_family/toy_family.hpp"

using namespace exactune;

namespace {

// Shape a (length 36) has two valid variants, b (length 68) four: six pairs,
// sorted (a t32_v4_planted_wrong), (a t32_v4_right), (b t32_v4_planted_wrong), ...
SweepRequest toy_request() {
  SweepRequest request;
  request.shapes = parse_shapes(exactune_test::toy_family(),
                                "shapes:\n"
                                "  - name: a\n    model: m\n    rows: 3\n    length: 36\n"
                                "  - name: b\n    model: m\n    rows: 9\n    length: 68\n",
                                "t.yaml");
  return request;
}

SweepScope scope_of(const SweepRequest& request) {
  return sweep_scope(exactune_test::toy_family(), request.shapes.shapes, request.variant_glob, request.only,
                     std::nullopt, request.shard);
}

}  // namespace

TEST_CASE("a whole sweep covers every pair, writes to its GPU's folder and says nothing of a scope", "[sweep_plan]") {
  const SweepRequest request = toy_request();
  const SweepScope scope = scope_of(request);
  CHECK(scope.selection.everything());
  CHECK(scope.words().empty());
  RunIdentity identity{{"backend", "b"}};
  scope.add_to(identity);
  CHECK(identity == RunIdentity{{"backend", "b"}});

  const SweepPlan plan = plan_sweep(exactune_test::toy_family(), request, scope, "gpu-x");
  REQUIRE(plan.shapes.size() == 2);
  CHECK(plan.shapes[0].name == "a");
  CHECK(plan.shapes[1].name == "b");
  CHECK(plan.reports == std::filesystem::path("reports/gpu-x/toy_double"));
  CHECK(plan.out == plan.reports);
  CHECK(plan.verify_runs == 6);  // one input case per pair
}

TEST_CASE("a shard covers every n-th pair, writes beside the whole sweep's folder and names itself", "[sweep_plan]") {
  SweepRequest request = toy_request();
  request.shard = "3/6";
  const SweepScope scope = scope_of(request);
  REQUIRE(scope.selection.pairs());
  CHECK(*scope.selection.pairs() == std::set<ShapeVariant>{{"b", "t32_v4_planted_wrong"}});
  CHECK(scope.words() == " shard 3/6");
  CHECK(scope.folder_in("r") == std::filesystem::path("r/shards/3-of-6"));

  const SweepPlan plan = plan_sweep(exactune_test::toy_family(), request, scope, "gpu-x");
  REQUIRE(plan.shapes.size() == 1);  // a has no pair of the shard: not swept
  CHECK(plan.shapes[0].name == "b");
  CHECK(plan.out == std::filesystem::path("reports/gpu-x/toy_double/shards/3-of-6"));
  CHECK(plan.verify_runs == 1);

  request.out = "elsewhere";
  CHECK(plan_sweep(exactune_test::toy_family(), request, scope, "gpu-x").out == std::filesystem::path("elsewhere"));
  request.shard = "7/6";
  CHECK_THROWS_AS(scope_of(request), exactune::input_error);
}

TEST_CASE("gate mode writes to gate/ and names its table", "[sweep_plan]") {
  SweepScope scope;
  scope.only = "reports/g/f/heuristics.yaml";
  CHECK(scope.words() == " gate mode (only reports/g/f/heuristics.yaml)");
  CHECK(scope.folder_in("r") == std::filesystem::path("r/gate"));
  RunIdentity identity;
  scope.add_to(identity);
  CHECK(identity == RunIdentity{{"only", "reports/g/f/heuristics.yaml"}});
}

TEST_CASE("a sweep's plan gives run_sweep the request's settings and its journal every key it had", "[sweep_plan]") {
  SweepRequest request = toy_request();
  request.variant_glob = "t32_*";
  request.jobs = 3;
  request.seed = 11;
  request.planted_crashes = {"trap"};
  request.retime_top = 4;
  request.noise_passes = 1;
  request.policy = "both";
  request.strategy = "exhaustive";
  request.timer.repetitions = 9;
  request.shard = "1/2";
  const SweepScope scope = scope_of(request);
  const SweepPlan plan = plan_sweep(exactune_test::toy_family(), request, scope, "gpu-x");

  CHECK(plan.policy == ChooserPolicy::both);
  const SweepOptions& o = plan.options;
  CHECK(o.variant_glob == "t32_*");
  CHECK(o.jobs == 3);
  CHECK(o.seed == 11);
  CHECK(o.planted_crashes == std::vector<std::string>{"trap"});
  CHECK(o.timer.repetitions == 9);
  CHECK(o.retime_top == 4);
  CHECK(o.retime_regimes == std::vector<TimingRegime>{TimingRegime::rotated, TimingRegime::cold});
  CHECK(o.noise_passes == 1);
  CHECK(o.strategy == "exhaustive");
  REQUIRE(o.selection.pairs());
  CHECK(*o.selection.pairs() == *scope.selection.pairs());
  CHECK(o.steps == nullptr);

  const RunIdentity identity = plan.identity({{"backend", "b"}});
  CHECK(identity == RunIdentity{{"backend", "b"},
                                {"shard", "1/2"},
                                {"timer", "repetitions 9, launches per graph 20, max spread 0.05"},
                                {"min replay us", "500"},
                                {"retime top", "4"},
                                {"noise passes", "1"},
                                {"policy", "both"},
                                {"strategy", "exhaustive"}});
  // Replays of launches_per_graph always: the key a journal of before the rule had, and none other.
  request.timer.min_replay_us = 0;
  CHECK_FALSE(plan_sweep(exactune_test::toy_family(), request, scope, "gpu-x")
                  .identity({{"backend", "b"}})
                  .contains("min replay us"));
}

TEST_CASE("a narrowed sweep's results keep its pairs and record its scope", "[sweep_plan]") {
  SweepRequest request = toy_request();
  request.shard = "3/6";
  const SweepPlan plan = plan_sweep(exactune_test::toy_family(), request, scope_of(request), "gpu-x");
  SweepResults results;
  for (const char* shape : {"a", "b"}) {
    ShapeResult s;
    s.shape.name = shape;
    for (const char* variant : {"t32_v4_planted_wrong", "t32_v4_right"}) {
      VariantResult v;
      v.variant = variant;
      s.variants.push_back(v);
    }
    results.shapes.push_back(s);
  }
  plan.narrow(results);
  REQUIRE(results.shapes.size() == 1);
  CHECK(results.shapes[0].shape.name == "b");
  REQUIRE(results.shapes[0].variants.size() == 1);
  CHECK(results.shapes[0].variants[0].variant == "t32_v4_planted_wrong");
  CHECK(results.shard == Shard{3, 6});
  CHECK(results.narrowed());
}

TEST_CASE("without a GPU a narrowed sweep compiles the support kernels and its own pairs' only", "[sweep_plan]") {
  SweepRequest request = toy_request();
  request.shard = "3/6";
  request.jobs = 2;
  request.seed = 5;
  const SweepScope scope = scope_of(request);
  std::vector<Shape> cpu_shapes;
  for (const Shape& s : request.shapes.shapes) cpu_shapes.push_back(first_rows(exactune_test::toy_family(), s, 2));
  const SweepWithoutGpuPlan plan =
      plan_sweep_without_gpu(exactune_test::toy_family(), request, scope, {"sm_90"}, cpu_shapes);
  std::vector<std::string> compiled;
  for (const CompileRequest& r : plan.compiles) compiled.push_back(r.name);
  CHECK(compiled == std::vector<std::string>{"toy_reference", "copy_bytes", "t32_v4_planted_wrong@L68"});
  REQUIRE(plan.shapes.size() == 1);
  CHECK(plan.shapes[0].name == "b");
  CHECK(plan.shapes[0].rows() == 2);
  CHECK(plan.stage.compile.jobs == 2);
  CHECK(plan.stage.verify.seed == 5);
  CHECK(plan.verify_runs == 1);
  CHECK(plan.identity({{"backend", "cpu"}}) == RunIdentity{{"backend", "cpu"}, {"shard", "3/6"}});

  request.shard.clear();
  const SweepWithoutGpuPlan whole =
      plan_sweep_without_gpu(exactune_test::toy_family(), request, scope_of(request), {"sm_90"}, cpu_shapes);
  CHECK(whole.compiles.size() == 2 + 6);
  CHECK(whole.shapes.size() == 2);
}
