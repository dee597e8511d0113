// A sweep on a GPU, planned before it runs (`exactune sweep`): from what the
// command line asks (SweepRequest) and what the sweep covers (SweepScope),
// the shapes swept, the folder written, what identifies its journal, the
// options run_sweep takes and which files it leaves. The command parses and
// prints; the decisions of a sweep are made here, beside the sweep itself.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <exactune/family.hpp>
#include <exactune/results.hpp>
#include <exactune/shapes.hpp>

#include "store/chooser_policy.hpp"
#include "strategies/strategy_registry.hpp"
#include "supervise/journal.hpp"
#include "sweep/sweep.hpp"
#include "sweep/sweep_scope.hpp"
#include "time/timer.hpp"

namespace exactune {

// What `exactune sweep` is asked, parsed from its command line.
struct SweepRequest {
  ShapeSet shapes;
  std::string variant_glob = "*";
  int jobs = 0;  // parallel compiles; 0: one per hardware thread
  std::uint64_t seed = 1;
  std::vector<std::string> planted_crashes;  // tests of supervision (VerifyStageOptions::planted_crashes)
  // Variants built about 1 + this times as slow (kernel_templates/planted_slowdown.cuh): the gate's power test.
  double planted_slowdown = 0;
  std::string out;  // the report folder; "": the scope's (SweepScope::folder_in)
  TimerOptions timer;
  int retime_top = 3;
  int noise_passes = 4;
  std::string policy{policy_name(kDefaultPolicy)};
  std::string strategy{StrategyRegistry::kDefault};
  // Part of the space (space/selection.hpp): --shard i/n, --only heuristics.yaml.
  std::string shard;
  std::string only;
};

struct SweepPlan {
  SweepScope scope;
  std::vector<Shape> shapes;      // the shapes with a selected pair, in their order
  std::filesystem::path reports;  // reports/<gpu-slug>/<family>: the whole sweep's, where shards are merged
  std::filesystem::path out;      // where this sweep writes
  ChooserPolicy policy = kDefaultPolicy;
  SweepOptions options;         // but for its steps, deadlines and progress: the caller's
  std::size_t verify_runs = 0;  // the runs of its verify stage, for progress

  // `run` (what run_identity says of the backend and the inputs) with what
  // else makes this sweep a run of its own: its scope, timer settings,
  // re-timing, noise passes, policy and strategy.
  RunIdentity identity(RunIdentity run) const;
  // The results as this sweep leaves them: unselected pairs dropped, its scope recorded.
  void narrow(SweepResults& results) const;
  // Heuristics, header and summary choose across the whole space: a part of
  // it writes its evidence only (sweep.yaml); a whole sweep every report.
  // Returns the files written.
  std::vector<std::filesystem::path> write(const SweepResults& results) const;
  // Gate mode's next step: the gate of the sweep.yaml written against the table's baseline.
  std::string gate_command() const;
};

SweepPlan plan_sweep(const KernelFamily& family, const SweepRequest& request, const SweepScope& scope,
                     const std::string& gpu_slug);

}  // namespace exactune
