// `exactune sweep` without a GPU, planned: every stage it can run there. It
// compiles the kernels of the sweep's scope for the GPU targets (proving that
// every variant builds; the CPU uses none of it, but it is what the GPU will
// need) and verifies the scope on the CPU; timing waits for a GPU.
#pragma once
#include <string>
#include <vector>

#include <exactune/compile_request.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "supervise/journal.hpp"
#include "sweep/sweep_plan.hpp"
#include "sweep/sweep_scope.hpp"
#include "verify/verify_stage.hpp"

namespace exactune {

struct SweepWithoutGpuPlan {
  SweepScope scope;
  std::vector<CompileRequest> compiles;  // every target's support kernels, then the scope's variants
  std::vector<Shape> shapes;             // what the CPU verifies: its shapes with a selected pair
  VerifyStageOptions stage;              // but for its steps, deadlines, planted crashes and progress: the caller's
  std::size_t verify_runs = 0;           // the runs of the verify stage, for progress

  // `run` (what run_identity says of the backend and the inputs) with the scope.
  RunIdentity identity(RunIdentity run) const;
};

// `targets`: the GPU architectures to compile for; `cpu_shapes`: the
// request's shapes as the CPU runs them (their first rows).
SweepWithoutGpuPlan plan_sweep_without_gpu(const KernelFamily& family, const SweepRequest& request,
                                           const SweepScope& scope, const std::vector<std::string>& targets,
                                           const std::vector<Shape>& cpu_shapes);

}  // namespace exactune
