// The phases of a sweep on a GPU (sweep_run.hpp) and their parts. Every
// measurement is a journaled step (step_runner.hpp) whose name and record a
// resumed sweep replays: the order of the steps here is the journal's.
#include "sweep/sweep_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "backends/gpu/device_info.hpp"
#include "strategies/anchored_search.hpp"
#include "sweep/step_records.hpp"
#include "sweep/timing_steps.hpp"
#include "time/rotation.hpp"
#include "time/statistics.hpp"
#include "util/utc_time.hpp"

namespace exactune {
namespace {

// How a figure is named in its shape's SM clock record (SmClockRecord::throttled): "<what> <regime>".
std::string figure_label(std::string_view what, TimingRegime regime) {
  return fmt::format("{} {}", what, regime_name(regime));
}

DeviceRecord device_record(const GpuDescription& gpu) {
  return DeviceRecord{gpu.name,         gpu.slug(),           gpu.arch(),          gpu.sm_count,
                      gpu.l2_bytes,     gpu.memory_clock_khz, gpu.memory_bus_bits, gpu.driver_version,
                      gpu.nvrtc_version};
}

// What the results say of the run before anything runs: the device, the
// family, the reference and the seed, and when it started.
SweepResults results_header(const KernelFamily& family, GpuBackend& backend, const SweepOptions& options) {
  SweepResults results;
  results.device = device_record(backend.gpu());
  results.family = family.name();
  results.reference_recipe = family.reference_recipe();
  results.seed = options.seed;
  results.created = utc_now();
  return results;
}

// The `top_n` exact variants of `s` with the lowest median in `regime`, fastest first.
std::vector<VariantResult*> fastest_timed(ShapeResult& s, TimingRegime regime, int top_n) {
  std::vector<VariantResult*> ranked;
  for (VariantResult& v : s.variants) {
    if (v.exact && v.timing(regime) && v.timing(regime)->median_us > 0) ranked.push_back(&v);
  }
  std::sort(ranked.begin(), ranked.end(), [&](const VariantResult* a, const VariantResult* b) {
    return std::tie(a->timing(regime)->median_us, a->variant) < std::tie(b->timing(regime)->median_us, b->variant);
  });
  ranked.resize(std::min<std::size_t>(ranked.size(), static_cast<std::size_t>(std::max(0, top_n))));
  return ranked;
}

const VariantBuild* find_build(const VerifyStageResult& verified, int size, const std::string& variant) {
  for (const VariantBuild& b : verified.builds) {
    if (b.size == size && b.variant.name == variant) return &b;
  }
  return nullptr;
}

VariantResult& variant_named(ShapeResult& s, const std::string& name) {
  return *std::find_if(s.variants.begin(), s.variants.end(), [&](const VariantResult& v) { return v.variant == name; });
}

std::vector<std::string> exact_variants(const ShapeResult& s) {
  std::vector<std::string> exact;
  for (const VariantResult& v : s.variants) {
    if (v.exact) exact.push_back(v.variant);
  }
  return exact;
}

}  // namespace

SweepRun::SweepRun(const KernelFamily& family, GpuBackend& backend, const std::vector<Shape>& shapes,
                   const CompileCache& cache, const SweepOptions& options)
    : family_(family),
      backend_(backend),
      shapes_(shapes),
      cache_(cache),
      options_(options),
      start_(std::chrono::steady_clock::now()),
      results_(results_header(family, backend, options)),
      screen_timers_(backend, options.timer),
      step_runner_(options.steps) {}

SweepResults SweepRun::operator()() {
  verify();
  prepare_timing();
  time();
  retime();
  measure_noise();
  return finish();
}

// ---------------------------------------------------------------- the phases

void SweepRun::verify() {
  support_ = load_support_kernels(family_, backend_, cache_);
  VerifyStageOptions stage;
  stage.variant_glob = options_.variant_glob;
  stage.planted_crashes = options_.planted_crashes;
  if (options_.planted_slowdown > 0) {
    stage.variant_defines.push_back(fmt::format("EXACTUNE_PLANTED_SLOWDOWN={}", options_.planted_slowdown));
  }
  stage.selection = options_.selection;
  stage.compile.jobs = options_.jobs;
  stage.verify.seed = options_.seed;
  stage.verify.steps = options_.steps;
  stage.verify.deadlines = options_.deadlines;
  std::size_t verified_runs = 0;
  stage.verify.on_record = [&](const VerifyRecord& r) {
    progress({"verify", ++verified_runs, 0, fmt::format("{} {}", r.shape, r.variant)});
  };
  verified_ = run_verify_stage(family_, backend_, support_, shapes_, cache_, stage);
  results_.shapes = results_from_verification(family_, shapes_, verified_);
}

void SweepRun::prepare_timing() {
  timer_.emplace(backend_, options_.timer);
  results_.timing = timer_->method();
  results_.timing.noise_passes = options_.noise_passes;
  strategy_ = &StrategyRegistry::instance().find(options_.strategy);
  results_.strategy = strategy_->name();
  results_.strategy_settings = strategy_->settings();
  for (const ShapeResult& s : results_.shapes) {
    to_time_ += 1 + std::count_if(s.variants.begin(), s.variants.end(), [](const VariantResult& v) { return v.exact; });
  }
  // The shapes' timers are kept while their working sets fit an eighth of the GPU's memory: a workload holds
  // its outputs and the reference chain's intermediates besides what a launch moves. None kept where the
  // driver reports no memory size (each shape's copies made again on every return to it).
  shape_timers_.emplace(family_, backend_, support_, *timer_, options_.seed, backend_.gpu().total_memory_bytes / 8);
}

// Per shape: the copy and the reference chain, then the exact variants the
// search strategy keeps after its screens, each timed fully in every regime,
// and the serving framework's configuration (an anchor: the reports compare
// the table's choice against it), timed fully whatever the screens.
void SweepRun::time() {
  for (ShapeResult& s : results_.shapes) {
    s.rotation = plan_rotation(s.bytes_moved, results_.device.l2_bytes).rotation;
    time_baselines(s);
    const std::vector<std::string> exact = exact_variants(s);
    std::vector<std::string> anchors;
    if (const std::optional<FrameworkRule> rule = family_.framework_rule(s.shape)) {
      anchors.push_back(rule->configuration.variant);
    }
    const SearchDecision decision =
        decide_with_anchors(*strategy_, exact, anchors, std::bind_front(&SweepRun::screen, this, std::ref(s)),
                            SearchContext{std::max(1, options_.retime_top + 1)});
    for (const CutVariant& cut : decision.cut) {
      variant_named(s, cut.variant).screened_out = ScreenedOut{cut.round, cut.screen.timings};
    }
    const std::size_t timed_before = timed_;
    for (const std::string& name : decision.fully_timed) time_fully(s, variant_named(s, name));
    timed_ = timed_before + exact.size();  // the variants not timed fully count as done
    progress({"time", timed_, to_time_, s.shape.name});
  }
}

// The fastest few of each shape in each regime the chooser ranks by, timed
// again in reverse order, their samples merged: a winner must hold up over
// two separate measurements.
void SweepRun::retime() {
  std::size_t retimed = 0;
  const std::size_t to_retime = results_.shapes.size() * options_.retime_top * options_.retime_regimes.size();
  for (ShapeResult& s : results_.shapes) {
    for (TimingRegime regime : options_.retime_regimes) {
      const std::vector<VariantResult*> ranked = fastest_timed(s, regime, options_.retime_top);
      for (auto it = ranked.rbegin(); it != ranked.rend(); ++it) {
        VariantResult& v = **it;
        retime_variant(s, regime, v);
        progress(
            {"re-time", ++retimed, to_retime, fmt::format("{} {} {}", s.shape.name, v.variant, regime_name(regime))});
      }
    }
  }
}

// Run-to-run noise: passes over every shape after the main timing, each
// re-measuring the copy and the fastest few in every regime. The main
// timing is the first pass; each figure is taken against its own pass's copy.
void SweepRun::measure_noise() {
  if (options_.noise_passes <= 0) return;
  note_main_timing_figures();
  std::size_t measured = 0;
  const std::size_t to_measure = results_.shapes.size() * static_cast<std::size_t>(options_.noise_passes);
  for (int pass = 0; pass < options_.noise_passes; ++pass) {
    for (ShapeResult& s : results_.shapes) {
      progress({"noise", ++measured, to_measure, fmt::format("pass {} {}", pass + 1, s.shape.name)});
      noise_pass(pass, s);
    }
  }
  record_noise();
}

SweepResults SweepRun::finish() {
  results_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return std::move(results_);
}

// ---------------------------------------------------------------- time's parts

void SweepRun::time_baselines(ShapeResult& s) {
  const StepResult baselines =
      step_runner_.run(baselines_step(s.shape.name), timing_deadline(s, 2 * kTimingRegimes.size()), [&] {
        nlohmann::json record;
        for (TimingRegime regime : kTimingRegimes) {
          const Measurement copy = timer_of(s).copy(regime);
          const Measurement reference_chain = timer_of(s).reference_chain(regime);
          record["copy"][regime_name(regime)] = timing_json(copy.timing);
          record["reference_chain"][regime_name(regime)] = timing_json(reference_chain.timing);
          record_sm_clock(record, figure_label("copy", regime), copy);
          record_sm_clock(record, figure_label("reference_chain", regime), reference_chain);
        }
        return record;
      });
  if (baselines.ok()) note_sm_clocks(s, baselines);
  for (TimingRegime regime : kTimingRegimes) {
    if (!baselines.ok()) continue;
    s.copy(regime) = timing_from_json(baselines.entry({"copy", regime_name(regime)}), "copy");
    s.reference_chain(regime) =
        timing_from_json(baselines.entry({"reference_chain", regime_name(regime)}), "reference_chain");
  }
  progress({"time", ++timed_, to_time_, s.shape.name + " copy and reference chain"});
}

// The strategy's ScreenMeasure: `variant` measured in the regimes the chooser
// ranks by, at `effort`; none when the measurement failed.
std::optional<Screen> SweepRun::screen(ShapeResult& s, const std::string& variant, int round,
                                       const ScreenEffort& effort) {
  const VariantBuild* build = build_of(s, variant);
  progress({"time", timed_, to_time_, fmt::format("{} {} (screen, round {})", s.shape.name, variant, round)});
  const StepResult screened = step_runner_.run(
      screen_step(s.shape.name, round, variant), timing_deadline(s, options_.retime_regimes.size()), [&] {
        nlohmann::json record;
        for (TimingRegime regime : options_.retime_regimes) {
          record["samples"][regime_name(regime)] =
              timer_of(s).screen(screen_timers_.at(effort), regime, kernel_for(*build), build->variant).samples_us;
        }
        return record;
      });
  if (!screened.ok()) {
    variant_named(s, variant).failure = fmt::format("screening failed: {}", screened.failure);
    return std::nullopt;
  }
  return screen_from_samples(s, options_.retime_regimes, screened);
}

void SweepRun::time_fully(ShapeResult& s, VariantResult& v) {
  const VariantBuild* build = build_of(s, v.variant);
  const StepResult timed_variant =
      step_runner_.run(timing_step(s.shape.name, v.variant), timing_deadline(s, kTimingRegimes.size()), [&] {
        nlohmann::json record;
        for (TimingRegime regime : kTimingRegimes) {
          const Measurement m = timer_of(s).variant(regime, kernel_for(*build), build->variant);
          record["timing"][regime_name(regime)] = timing_json(m.timing);
          record["samples"][regime_name(regime)] = m.samples_us;
          record_sm_clock(record, figure_label(v.variant, regime), m);
        }
        return record;
      });
  if (timed_variant.ok()) {
    note_sm_clocks(s, timed_variant);
    for (TimingRegime regime : kTimingRegimes) {
      v.timing(regime) = timing_from_json(timed_variant.entry({"timing", regime_name(regime)}), "timing");
      samples_[{s.shape.name, v.variant, regime}] =
          timed_variant.entry({"samples", regime_name(regime)}).get<std::vector<double>>();
    }
  } else {
    v.failure = fmt::format("timing failed: {}", timed_variant.failure);
    for (TimingRegime regime : kTimingRegimes) v.timing(regime).reset();
  }
  progress({"time", ++timed_, to_time_, s.shape.name + " " + v.variant});
}

// A figure's SM clock, read after its samples, in its step's record (kept by the journal like the samples).
void SweepRun::record_sm_clock(nlohmann::json& record, const std::string& figure, const Measurement& m) {
  if (m.sm_clock_mhz) record[kSmClockRecordKey][figure] = *m.sm_clock_mhz;
}

// The clocks a step's record holds, counted into the shape's record (ShapeResult::note_sm_clock).
void SweepRun::note_sm_clocks(ShapeResult& s, const StepResult& step) {
  const auto clocks = step.record.is_object() ? step.record.find(kSmClockRecordKey) : step.record.end();
  if (clocks == step.record.end() || !clocks->is_object()) return;  // a journal of a sweep that read none
  for (const auto& [figure, mhz] : clocks->items()) {
    if (mhz.is_number_integer()) s.note_sm_clock(figure, mhz.get<int>(), timer_->default_sm_clock_mhz());
  }
}

// ---------------------------------------------------------------- retime's part

void SweepRun::retime_variant(ShapeResult& s, TimingRegime regime, VariantResult& v) {
  const VariantBuild* build = build_of(s, v.variant);
  const StepResult more = step_runner_.run(retime_step(s.shape.name, regime, v.variant), timing_deadline(s, 1), [&] {
    const Measurement m = timer_of(s).variant(regime, kernel_for(*build), build->variant);
    nlohmann::json record{{"samples", m.samples_us}};
    record_sm_clock(record, figure_label(v.variant, regime) + " (re-timed)", m);
    return record;
  });
  if (more.ok()) {
    note_sm_clocks(s, more);
    std::vector<double>& merged = samples_[{s.shape.name, v.variant, regime}];
    const auto added = more.entry({"samples"}).get<std::vector<double>>();
    merged.insert(merged.end(), added.begin(), added.end());
    v.timing(regime) = timing_from_samples(merged);
  }
}

// ---------------------------------------------------------------- measure_noise's parts

// The first pass: the main timing's figure of the fastest few of each shape
// and regime, each over its copy's.
void SweepRun::note_main_timing_figures() {
  for (ShapeResult& s : results_.shapes) {
    for (TimingRegime regime : kTimingRegimes) {
      const std::optional<Timing>& copy = s.copy(regime);
      if (!copy || copy->median_us <= 0) continue;
      for (VariantResult* v : fastest_timed(s, regime, options_.noise_variants)) {
        noise_ratios_[{s.shape.name, regime}][v->variant].push_back(v->timing(regime)->median_us / copy->median_us);
      }
    }
  }
}

// Pass `pass` (from 0) over shape `s`: its copy and the variants of its first
// pass, in every regime that has them, in one step.
void SweepRun::noise_pass(int pass, ShapeResult& s) {
  std::size_t regimes = 0, figures = 0;
  for (TimingRegime regime : kTimingRegimes) {
    if (const auto found = noise_ratios_.find({s.shape.name, regime}); found != noise_ratios_.end()) {
      ++regimes;
      figures += 1 + found->second.size();
    }
  }
  if (regimes == 0) return;
  const StepResult pass_figures =
      step_runner_.run(noise_step(pass + 1, s.shape.name), timing_deadline(s, figures), [&] {
        nlohmann::json record;
        for (TimingRegime regime : kTimingRegimes) {
          const auto found = noise_ratios_.find({s.shape.name, regime});
          if (found == noise_ratios_.end()) continue;
          record["copy"][regime_name(regime)] = timer_of(s).copy(regime).timing.median_us;
          for (const auto& [variant, per_pass] : found->second) {
            const VariantBuild* build = build_of(s, variant);
            record["variants"][regime_name(regime)][variant] =
                timer_of(s).variant(regime, kernel_for(*build), build->variant).timing.median_us;
          }
        }
        return record;
      });
  if (!pass_figures.ok()) return;
  for (TimingRegime regime : kTimingRegimes) {
    const auto found = noise_ratios_.find({s.shape.name, regime});
    if (found == noise_ratios_.end()) continue;
    const double copy_us = pass_figures.entry({"copy", regime_name(regime)}).get<double>();
    for (auto& [variant, per_pass] : found->second) {
      per_pass.push_back(pass_figures.entry({"variants", regime_name(regime), variant}).get<double>() / copy_us);
    }
  }
}

// Per shape and regime: how far apart the passes' figures of each variant
// were, the largest of them (RunToRunNoise).
void SweepRun::record_noise() {
  for (ShapeResult& s : results_.shapes) {
    for (TimingRegime regime : kTimingRegimes) {
      const auto found = noise_ratios_.find({s.shape.name, regime});
      if (found == noise_ratios_.end()) continue;
      RunToRunNoise noise{regime, 0, options_.noise_passes + 1, static_cast<int>(found->second.size())};
      for (const auto& [variant, per_pass] : found->second)
        noise.noise = std::max(noise.noise, relative_range(per_pass));
      s.run_to_run_noise.push_back(noise);
    }
  }
}

// ---------------------------------------------------------------- helpers

void SweepRun::progress(const SweepProgress& p) const {
  if (options_.on_progress) options_.on_progress(p);
}

const VariantBuild* SweepRun::build_of(const ShapeResult& s, const std::string& variant) const {
  return find_build(verified_, s.shape.size, variant);
}

const LoadedKernel& SweepRun::kernel_for(const VariantBuild& build) {
  auto& k = loaded_[build.outcome.kernel.name];
  if (!k) k = backend_.load(build.outcome.kernel);
  return *k;
}

// A bound on what one step moves, for its deadline: every launch the timer
// may make in `regimes` regimes, each with an L2 flush's bytes besides.
std::chrono::milliseconds SweepRun::timing_deadline(const ShapeResult& s, std::size_t regimes) const {
  const TimerOptions& t = options_.timer;
  const double launches = static_cast<double>(t.max_attempts) * (t.warmup_launches + t.repetitions * t.iterations) *
                          t.launches_per_graph * static_cast<double>(regimes);
  return options_.deadlines.for_bytes(launches * static_cast<double>(s.bytes_moved + 2 * results_.device.l2_bytes));
}

}  // namespace exactune
