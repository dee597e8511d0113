// The sweep on a GPU: compile -> verify -> time -> results. Every variant of
// every shape gets a record: its resources, its exactness (with the first
// failure), and, when exact, its hot and cold timings next to the copy roofline
// and the eager chain measured in the same run. The fastest few of each shape
// are timed again before anyone chooses among them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compile/compile_cache.hpp"
#include "backends/gpu/gpu_backend.hpp"
#include <exactune/results.hpp>
#include "time/timer.hpp"
#include "verify/verify_stage.hpp"

namespace exactune {

struct SweepProgress {
  std::string stage;  // "compile+verify", "time", "re-time"
  std::size_t done = 0;
  std::size_t total = 0;
  std::string detail;
};

struct SweepOptions {
  std::string variant_glob = "*";
  std::uint64_t seed = 1;
  int jobs = 0;
  TimerOptions timer;
  int retime_top = 3;  // contenders per shape timed again before choosing
  std::function<void(const SweepProgress&)> on_progress;
};

SweepResults run_sweep(const KernelFamily& family, GpuBackend& backend, const std::vector<Shape>& shapes,
                       const CompileCache& cache, const SweepOptions& options);

// One record per (shape, build) from the verify stage's records: exactness,
// the first failure, resources. Timings are left empty.
std::vector<ShapeResult> results_from_verification(const KernelFamily& family, const std::vector<Shape>& shapes,
                                                   const VerifyStageResult& verified);

}  // namespace exactune
