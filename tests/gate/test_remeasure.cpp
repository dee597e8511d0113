// Re-measuring what is ambiguous (gate/remeasure.hpp): the gate names the
// shapes whose figures it could not tell, and pools later runs' samples into
// the candidate's, each against its own run's copy, until the verdict is
// decided or gate mode's rounds run out.
#include <string>
#include <vector>

#include <exactune/error.hpp>

#include "catch.hpp"
#include "gate/gate.hpp"
#include "gate/remeasure.hpp"
#include "support/sampled_timings.hpp"

using namespace exactune;
using exactune_test::sampled_run;
using exactune_test::samples_around;

namespace {

GateChange change_of(const GateReport& report) {
  REQUIRE(report.findings.size() == 1);
  return report.findings[0].change;
}

}  // namespace

TEST_CASE("ambiguous leads to a re-measure, and the pooled samples decide", "[gate][remeasure]") {
  const SweepResults baseline = sampled_run(samples_around(10.0, 0.02), samples_around(4.0, 0.02));
  // The candidate's first run caught 5 noisy samples of a real +8%: too wide to tell.
  SweepResults candidate = sampled_run(samples_around(10.8, 0.5, 5), samples_around(4.0, 0.02, 5));
  const GateReport first = compare_sweeps(baseline, candidate, {});
  CHECK(change_of(first) == GateChange::ambiguous);
  CHECK(shapes_to_remeasure(first) == std::vector<std::string>{"s"});

  // Two more runs, the second on a GPU clocked 10% lower: against its copy, the same figure.
  pool_remeasured(candidate, sampled_run(samples_around(10.8, 0.02), samples_around(4.0, 0.02)));
  pool_remeasured(candidate, sampled_run(samples_around(11.88, 0.02), samples_around(4.4, 0.02)));
  CHECK(candidate.shapes[0].variants[0].rotated->samples == 65);
  CHECK(candidate.shapes[0].variants[0].rotated->samples_us.size() == 65);
  CHECK(candidate.shapes[0].copy_rotated->samples == 65);
  CHECK(candidate.shapes[0].variants[0].rotated->median_us == Approx(10.8).epsilon(0.002));
  const GateReport pooled = compare_sweeps(baseline, candidate, {});
  CHECK(change_of(pooled) == GateChange::slower);
  CHECK(shapes_to_remeasure(pooled).empty());
}

TEST_CASE("re-measured runs narrow the between-run noise: an unchanged build one run cannot tell is same after two",
          "[gate][remeasure]") {
  // The baseline's passes ranged 5% apart: against one run, the interval on an
  // unchanged figure reaches past the 5% threshold.
  SweepResults baseline = sampled_run(samples_around(10.0, 0.01), samples_around(4.0, 0.01));
  baseline.shapes[0].run_to_run_noise.push_back({TimingRegime::rotated, 0.05, 5, 3});
  SweepResults candidate = sampled_run(samples_around(10.0, 0.01), samples_around(4.0, 0.01));
  CHECK(change_of(compare_sweeps(baseline, candidate, {})) == GateChange::ambiguous);
  pool_remeasured(candidate, sampled_run(samples_around(10.0, 0.01), samples_around(4.0, 0.01)));
  CHECK(candidate.shapes[0].variants[0].rotated->runs == 2);
  CHECK(change_of(compare_sweeps(baseline, candidate, {})) == GateChange::ambiguous);  // sqrt(1 + 1/2): not yet
  pool_remeasured(candidate, sampled_run(samples_around(10.0, 0.01), samples_around(4.0, 0.01)));
  CHECK(candidate.shapes[0].variants[0].rotated->runs == 3);
  CHECK(candidate.shapes[0].copy_rotated->runs == 3);
  const GateReport decided = compare_sweeps(baseline, candidate, {});
  CHECK(change_of(decided) == GateChange::within_noise);
  CHECK(decided.findings[0].detail.find("vs 90 samples of 3 runs") != std::string::npos);
  // Counted as one run, the same samples stay ambiguous: the runs, not the samples, narrow it.
  candidate.shapes[0].variants[0].rotated->runs = 1;
  CHECK(change_of(compare_sweeps(baseline, candidate, {})) == GateChange::ambiguous);
}

TEST_CASE("a decided figure names nothing to re-measure, and no change stays same when pooled", "[gate][remeasure]") {
  const SweepResults baseline = sampled_run(samples_around(10.0, 0.02), samples_around(4.0, 0.02));
  SweepResults candidate = sampled_run(samples_around(10.0, 0.02), samples_around(4.0, 0.02));
  CHECK(shapes_to_remeasure(compare_sweeps(baseline, candidate, {})).empty());
  pool_remeasured(candidate, sampled_run(samples_around(11.0, 0.02), samples_around(4.4, 0.02)));
  CHECK(change_of(compare_sweeps(baseline, candidate, {})) == GateChange::within_noise);
}

TEST_CASE("runs that differ in family, GPU, seed or recipe do not pool, summaries are left alone",
          "[gate][remeasure]") {
  SweepResults candidate = sampled_run(samples_around(10.0, 0.02), samples_around(4.0, 0.02));
  SweepResults other = candidate;
  other.device.name = "NVIDIA H100";
  REQUIRE_THROWS_WITH(pool_remeasured(candidate, other),
                      "the re-measured run differs from the candidate in its GPU (NVIDIA H100 instead of NVIDIA H200): "
                      "their samples do not pool");
  other = candidate;
  other.seed = 9;
  CHECK_THROWS_AS(pool_remeasured(candidate, other), input_error);

  SweepResults summary_only = candidate;
  summary_only.shapes[0].variants[0].rotated->samples_us.clear();
  const Timing before = *summary_only.shapes[0].variants[0].rotated;
  pool_remeasured(summary_only, candidate);
  CHECK(summary_only.shapes[0].variants[0].rotated->samples == before.samples);
  CHECK(summary_only.shapes[0].variants[0].rotated->samples_us.empty());
}
