// The sweep on a GPU: compile -> verify -> time -> results. Every variant of
// every shape gets a record: its resources, its exactness (with the first
// failure), and, when exact, its timings in each regime (rotated, L2-resident,
// cold) next to the copy roofline and the reference chain measured in the same
// run; or, when the search strategy (strategies/) screened it out, what its
// screens measured. The fastest few of each shape are timed again, in the
// regimes the chooser ranks by, before anyone chooses among them; then separate passes
// re-measure the copy and the fastest few in every regime, and the shape
// records how far apart the passes were (RunToRunNoise): the gate's noise.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <exactune/results.hpp>

#include "backends/gpu/gpu_backend.hpp"
#include "compile/compile_cache.hpp"
#include "strategies/strategy_registry.hpp"
#include "time/rotation.hpp"
#include "time/timer.hpp"
#include "verify/verify_stage.hpp"

namespace exactune {

struct SweepProgress {
  std::string stage;  // "verify", "time", "re-time", "noise"
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
  // The regimes the chooser ranks by (its policy's): where contenders are timed again.
  std::vector<TimingRegime> retime_regimes = {TimingRegime::rotated};
  // Separate passes for RunToRunNoise, 0: none. 4, so that with the main
  // timing 5 passes estimate the noise between runs the gate widens by.
  int noise_passes = 4;
  int noise_variants = 3;  // the fastest exact variants per shape and regime each pass re-measures
  // The search strategy (StrategyRegistry) that decides which exact variants
  // are timed fully; its screens measure in retime_regimes.
  std::string strategy{StrategyRegistry::kDefault};
  std::function<void(const SweepProgress&)> on_progress;
  // A supervised sweep (supervise/steps.hpp): verify steps as the verifier's,
  // then "time/<shape>/baselines", "screen/<shape>/<round>/<variant>",
  // "time/<shape>/<variant>", "retime/<shape>/<regime>/<variant>" and
  // "noise/<pass>/<shape>", each journaled with what the results are made
  // from (samples included), so that a resumed sweep ends with the results of
  // an uninterrupted one, the strategy's decisions included.
  Steps* steps = nullptr;
  DeadlinePolicy deadlines;
  std::vector<std::string> planted_crashes;  // VerifyStageOptions::planted_crashes
  double planted_slowdown = 0;               // SweepRequest::planted_slowdown
  // The pairs verified (VerifyStageOptions::selection); an unselected pair of
  // a selected shape's size gets an unverified record (no cases, not exact),
  // which drop_unselected (space/selection.hpp) removes.
  Selection selection;
};

SweepResults run_sweep(const KernelFamily& family, GpuBackend& backend, const std::vector<Shape>& shapes,
                       const CompileCache& cache, const SweepOptions& options);

// One record per (shape, build) from the verify stage's records: exactness,
// the first failure, resources. Timings are left empty.
std::vector<ShapeResult> results_from_verification(const KernelFamily& family, const std::vector<Shape>& shapes,
                                                   const VerifyStageResult& verified);

}  // namespace exactune
