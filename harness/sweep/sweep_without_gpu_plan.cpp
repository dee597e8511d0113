// The plan of a sweep without a GPU (sweep_without_gpu_plan.hpp).
#include "sweep/sweep_without_gpu_plan.hpp"

#include <set>

#include <exactune/space.hpp>

#include "space/compile_plan.hpp"

namespace exactune {
namespace {

// The kernels to compile: the family's support kernels, then the variants of
// the scope's pairs, for every target.
std::vector<CompileRequest> compiles_of(const KernelFamily& family, const SweepRequest& request,
                                        const SweepScope& scope, const std::vector<std::string>& targets) {
  CompilePlan plan = plan_compiles(family, request.shapes.sizes(), targets, request.variant_glob);
  if (!scope.selection.everything()) {
    // A shard or gate mode builds its own pairs' kernels, not the whole space's.
    std::set<std::string> selected;
    for (const Shape& shape : request.shapes.shapes) {
      for (const Candidate& c : enumerate_space(family, shape.size)) {
        if (!c.valid() || !scope.selection.selects(shape.name, c.variant.name)) continue;
        for (const std::string& target : targets)
          selected.insert(family.variant_request(c.variant, shape.size, target).name);
      }
    }
    std::erase_if(plan.variants, [&](const CompileRequest& r) { return !selected.count(r.name); });
  }
  std::vector<CompileRequest> requests = plan.support;
  requests.insert(requests.end(), plan.variants.begin(), plan.variants.end());
  return requests;
}

}  // namespace

SweepWithoutGpuPlan plan_sweep_without_gpu(const KernelFamily& family, const SweepRequest& request,
                                           const SweepScope& scope, const std::vector<std::string>& targets,
                                           const std::vector<Shape>& cpu_shapes) {
  SweepWithoutGpuPlan plan;
  plan.scope = scope;
  plan.compiles = compiles_of(family, request, scope, targets);
  plan.shapes = scope.selection.shapes_of(cpu_shapes);
  plan.stage.variant_glob = request.variant_glob;
  plan.stage.compile.jobs = request.jobs;
  plan.stage.verify.seed = request.seed;
  plan.stage.selection = scope.selection;
  plan.verify_runs = count_verify_runs(family, plan.shapes, plan.stage.variant_glob, scope.selection);
  return plan;
}

RunIdentity SweepWithoutGpuPlan::identity(RunIdentity run) const {
  scope.add_to(run);
  return run;
}

}  // namespace exactune
