// One sweep on a GPU (run_sweep, sweep.hpp) as a run of named phases, the way
// nvbench's measure_cold lists its own: verify every variant, time each shape
// (its copy and reference chain, the strategy's screens, the exact variants it
// keeps), re-time the fastest few, measure the run-to-run noise. Each phase is
// a member function over the run's state, so that the order of the
// measurements, which a resumed sweep replays step by step from its journal,
// reads in one place: operator().
#pragma once
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sweep/screen_timers.hpp"
#include "sweep/shape_timer.hpp"
#include "sweep/step_runner.hpp"
#include "sweep/sweep.hpp"

namespace exactune {

class SweepRun {
 public:
  SweepRun(const KernelFamily& family, GpuBackend& backend, const std::vector<Shape>& shapes, const CompileCache& cache,
           const SweepOptions& options);
  SweepRun(const SweepRun&) = delete;
  SweepRun& operator=(const SweepRun&) = delete;

  // Runs every phase, in order; once.
  SweepResults operator()();

 private:
  // The phases, in the order operator() runs them.
  void verify();          // compile and verify every selected variant: the results' records
  void prepare_timing();  // the timer, the strategy and the count of what the time phase times
  void time();            // per shape: the baselines, the strategy's screens, the exact variants it keeps
  void retime();          // the fastest few again, in the regimes the chooser ranks by
  void measure_noise();   // separate passes over every shape: the run-to-run noise
  SweepResults finish();  // the wall time; the results

  // Parts of time(), per shape.
  void time_baselines(ShapeResult& s);
  std::optional<Screen> screen(ShapeResult& s, const std::string& variant, int round, const ScreenEffort& effort);
  void time_fully(ShapeResult& s, VariantResult& v);
  // Part of retime(): one more measurement of `v`, its samples merged with the main timing's.
  void retime_variant(ShapeResult& s, TimingRegime regime, VariantResult& v);
  static void record_sm_clock(nlohmann::json& record, const std::string& figure, const Measurement& m);
  void note_sm_clocks(ShapeResult& s, const StepResult& step);
  // Parts of measure_noise().
  void note_main_timing_figures();
  void noise_pass(int pass, ShapeResult& s);
  void record_noise();

  void progress(const SweepProgress& p) const;
  const VariantBuild* build_of(const ShapeResult& s, const std::string& variant) const;
  const LoadedKernel& kernel_for(const VariantBuild& build);
  ShapeTimer& timer_of(const ShapeResult& s) { return shape_timers_->of(s); }
  std::chrono::milliseconds timing_deadline(const ShapeResult& s, std::size_t regimes) const;

  const KernelFamily& family_;
  GpuBackend& backend_;
  const std::vector<Shape>& shapes_;
  const CompileCache& cache_;
  const SweepOptions& options_;
  const std::chrono::steady_clock::time_point start_;

  SweepResults results_;
  SupportKernels support_;
  VerifyStageResult verified_;
  // The sweep's timer (it holds the L2 flush buffer on the device): made once
  // every variant is verified, as the timing begins.
  std::optional<Timer> timer_;
  const SearchStrategy* strategy_ = nullptr;
  ScreenTimers screen_timers_;
  const StepRunner step_runner_;
  std::size_t to_time_ = 0, timed_ = 0;  // the time phase's progress: each shape's baselines and exact variants
  std::map<std::string, std::unique_ptr<LoadedKernel>> loaded_;  // by kernel name
  std::optional<ShapeTimers> shape_timers_;
  // Samples per (shape, variant, regime), for merging with a later re-timing.
  std::map<std::tuple<std::string, std::string, TimingRegime>, std::vector<double>> samples_;
  // Per (shape, regime): the variants the noise passes re-measure, and each
  // one's copy-relative figure per pass (the main timing the first).
  std::map<std::pair<std::string, TimingRegime>, std::map<std::string, std::vector<double>>> noise_ratios_;
};

}  // namespace exactune
