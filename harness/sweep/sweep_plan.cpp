// The plan of a sweep on a GPU (sweep_plan.hpp).
#include "sweep/sweep_plan.hpp"

#include <fmt/format.h>

#include "gate/gate_selection.hpp"
#include "report/report_writer.hpp"
#include "store/report_inputs.hpp"
#include "store/sweep_file.hpp"
#include "verify/verify_stage.hpp"

namespace exactune {

SweepPlan plan_sweep(const KernelFamily& family, const SweepRequest& request, const SweepScope& scope,
                     const std::string& gpu_slug) {
  SweepPlan plan;
  plan.scope = scope;
  plan.shapes = scope.selection.shapes_of(request.shapes.shapes);
  plan.reports = std::filesystem::path("reports") / gpu_slug / family.name();
  plan.out = !request.out.empty() ? std::filesystem::path(request.out) : scope.folder_in(plan.reports);
  plan.policy = policy_named(request.policy);
  SweepOptions& sweep = plan.options;
  sweep.planted_crashes = request.planted_crashes;
  sweep.planted_slowdown = request.planted_slowdown;
  sweep.variant_glob = request.variant_glob;
  sweep.seed = request.seed;
  sweep.jobs = request.jobs;
  sweep.timer = request.timer;
  sweep.retime_top = request.retime_top;
  sweep.retime_regimes = policy_regimes(plan.policy);
  sweep.noise_passes = request.noise_passes;
  sweep.strategy = request.strategy;
  sweep.selection = scope.selection;
  plan.verify_runs = count_verify_runs(family, plan.shapes, sweep.variant_glob, scope.selection);
  return plan;
}

RunIdentity SweepPlan::identity(RunIdentity run) const {
  scope.add_to(run);
  run["timer"] = fmt::format("repetitions {}, launches per graph {}, max spread {}", options.timer.repetitions,
                             options.timer.launches_per_graph, options.timer.max_spread);
  // A journal of replays sized by the shape must not resume one of fixed replays, nor the reverse.
  if (options.timer.min_replay_us > 0) run["min replay us"] = fmt::format("{}", options.timer.min_replay_us);
  run["retime top"] = std::to_string(options.retime_top);
  run["noise passes"] = std::to_string(options.noise_passes);
  run["policy"] = policy_name(policy);
  run["strategy"] = options.strategy;
  // A journal of a planted run must not resume an honest one, nor the reverse.
  if (options.planted_slowdown > 0) run["planted slowdown"] = fmt::format("{}", options.planted_slowdown);
  return run;
}

void SweepPlan::narrow(SweepResults& results) const {
  drop_unselected(results.shapes, scope.selection);
  results.shard = scope.shard;
  results.only = scope.only;
}

std::vector<std::filesystem::path> SweepPlan::write(const SweepResults& results) const {
  if (results.narrowed()) {
    write_sweep_file(results, out / "sweep.yaml");
    return {out / "sweep.yaml"};
  }
  return write_reports(results, out, report_inputs_beside(out, results.family, policy));
}

std::string SweepPlan::gate_command() const { return gate_command_after(scope.only, (out / "sweep.yaml").string()); }

}  // namespace exactune
