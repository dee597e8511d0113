// A supervised verify's setup step (supervise/steps.hpp): its deadline is the
// device's, a multiple of the time its bytes take at the roofline, so the
// inputs it runs on must be made before the step begins. A per-token shape's
// inputs are a billion host draws, which no such deadline allows: on a GPU its
// every variant was once killed as hung, the inputs still being drawn.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.hpp"
#include "catch.hpp"
#include "compile/compile_cache.hpp"
#include "shapes/shape_file.hpp"
#include "toy_family/toy_family.hpp"
#include "verify/verifier.hpp"
#include "verify/verify_records.hpp"
#include "verify/verify_stage.hpp"

using namespace exactune;

namespace {

// Steps that keep nothing and say in what order they were announced.
class RecordingSteps : public Steps {
 public:
  explicit RecordingSteps(std::vector<std::string>& events) : events_(events) {}
  const StepOutcome* recorded(const std::string&) const override { return nullptr; }
  void begin(const std::string& step, std::chrono::milliseconds) override { events_.push_back("begin " + step); }
  void end(const std::string& step) override { events_.push_back("end " + step); }
  void finish(const std::string& step, const nlohmann::json&) override { events_.push_back("finish " + step); }
  void after_failure() override {}

 private:
  std::vector<std::string>& events_;
};

std::ptrdiff_t index_of(const std::vector<std::string>& events, const std::string& event) {
  const auto at = std::find(events.begin(), events.end(), event);
  return at == events.end() ? -1 : at - events.begin();
}

}  // namespace

TEST_CASE("a verify step's inputs are made before its deadline starts, and a failure to make them is its record") {
  const KernelFamily& family = exactune_test::toy_family();
  const Shape shape =
      parse_shapes(family, "shapes:\n  - {name: setup-step, model: toy, rows: 3, length: 64}\n", "t.yaml").shapes.at(0);
  const CompileCache cache(CompileCache::default_directory());
  CpuBackend backend(1);
  const SupportKernels support = load_support_kernels(family, backend, cache);
  // The toy's one case, and a second whose inputs cannot be made.
  std::vector<InputCase> cases = family.input_cases(shape);
  cases.push_back({"unmade", "inputs that fail to be made"});

  std::vector<std::string> events;
  RecordingSteps steps(events);
  VerifyStageOptions options;
  options.variant_glob = "t32_v4_right";
  options.verify.steps = &steps;
  RecordedInputs inputs;
  inputs.cases = [&](const Shape&) { return cases; };
  inputs.workload = [&](Backend& b, const SupportKernels& k, const Shape& s, const InputCase& c) {
    events.push_back("made " + c.name);
    if (c.name == cases.back().name) throw std::runtime_error("no memory for the inputs");
    return family.make_workload(b, k, s, c, case_seed(options.verify.seed, s.name, c.name));
  };
  options.verify.recorded_inputs = inputs;
  const VerifyStageResult result = run_verify_stage(family, backend, support, {shape}, cache, options);

  for (const InputCase& c : cases) {
    const std::string setup = verify_setup_step(shape.name, c.name);
    INFO(c.name);
    const std::ptrdiff_t made = index_of(events, "made " + c.name), begun = index_of(events, "begin " + setup);
    REQUIRE(made >= 0);
    REQUIRE(begun >= 0);
    CHECK(made < begun);
  }
  // The inputs that could not be made: the step is finished with the reason,
  // and the case's run says it; the other cases ran.
  const std::string failed_setup = verify_setup_step(shape.name, cases.back().name);
  CHECK(index_of(events, "finish " + failed_setup) > index_of(events, "begin " + failed_setup));
  REQUIRE(result.records.size() == cases.size());
  for (const VerifyRecord& r : result.records) {
    INFO(r.input_case << ": " << r.message);
    if (r.input_case == cases.back().name) {
      CHECK(r.disposition == Disposition::not_run);
      CHECK(r.message == "the reference could not run: no memory for the inputs");
    } else {
      CHECK(r.disposition == Disposition::passed);
    }
  }
}
