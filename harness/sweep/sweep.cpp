#include "sweep/sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <future>
#include <map>
#include <optional>
#include <tuple>

#include "backends/gpu/device_info.hpp"
#include <exactune/error.hpp>
#include "sweep/timing_steps.hpp"
#include "util/utc_time.hpp"
#include "time/statistics.hpp"
#include "verify/verify_records.hpp"

namespace exactune {
namespace {

std::string failure_kind(const VerifyRecord& r) {
  if (r.disposition == Disposition::incorrect) return "incorrect";
  if (r.message.rfind("hung:", 0) == 0) return "hung";  // killed at its deadline by the supervisor
  return r.message.rfind("compile failed", 0) == 0 ? "compile" : "runtime";
}

DeviceRecord device_record(const GpuDescription& gpu) {
  return DeviceRecord{gpu.name,         gpu.slug(),          gpu.arch(),          gpu.sm_count,
                      gpu.l2_bytes,     gpu.memory_clock_khz, gpu.memory_bus_bits, gpu.driver_version,
                      gpu.nvrtc_version};
}

// Times one shape in every regime: the copy, the reference chain and exact
// variants. Holds the rotation's copies of the timing case's workload (copy 0
// is the one the L2-resident and cold figures use), all made from the same
// seed, so every copy holds the same inputs.
class ShapeTimer {
 public:
  ShapeTimer(Timer& timer, std::vector<std::unique_ptr<Workload>> workloads, const std::string& shape)
      : timer_(timer), workloads_(std::move(workloads)), shape_(shape) {}

  Measurement copy(TimingRegime regime) {
    return measure(regime, "copy", [](Workload& w) { w.launch_copy(); });
  }
  Measurement reference_chain(TimingRegime regime) {
    return measure(regime, "reference_chain", [](Workload& w) { w.launch_reference(); });
  }
  Measurement variant(TimingRegime regime, const LoadedKernel& kernel, const Variant& variant) {
    return measure(regime, variant.name, [&](Workload& w) { w.launch_variant(kernel, variant); });
  }
  // The variant measured by `screener`, a timer of less effort than the sweep's, for a search strategy's screen.
  Measurement screen(Timer& screener, TimingRegime regime, const LoadedKernel& kernel, const Variant& variant) {
    return measure_with(screener, regime, "screen/" + variant.name,
                        [&](Workload& w) { w.launch_variant(kernel, variant); });
  }

 private:
  Measurement measure(TimingRegime regime, const std::string& what, const std::function<void(Workload&)>& launch) {
    return measure_with(timer_, regime, what, launch);
  }
  Measurement measure_with(Timer& timer, TimingRegime regime, const std::string& what,
                           const std::function<void(Workload&)>& launch) {
    return timer.measure(regime, shape_ + "/" + what, static_cast<int>(workloads_.size()),
                         [&](int copy) { launch(*workloads_[static_cast<std::size_t>(copy)]); });
  }

  Timer& timer_;
  std::vector<std::unique_ptr<Workload>> workloads_;
  std::string shape_;
};

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

// How a timing step ended: its record, or why it has none.
struct StepResult {
  std::string step;
  nlohmann::json record;
  std::string failure;  // "" when the record is good
  std::string where;    // "<journal>:<line>" of a journaled record; "" of one just measured
  bool ok() const { return failure.empty(); }

  // The record's value under `keys`, outermost first. The journal checked each
  // record's types as it read it; what this sweep needs of one (its policy's
  // regimes, the variants of a noise pass) only the sweep knows: a journaled
  // record without it is refused where it is kept.
  const nlohmann::json& entry(std::initializer_list<std::string_view> keys) const {
    const nlohmann::json* at = &record;
    for (std::string_view key : keys) {
      const auto found = at->is_object() ? at->find(key) : at->end();
      if (found == at->end()) {
        throw input_error(fmt::format("{}: step '{}' has no '{}' in its record, which this sweep needs: the journal "
                                      "does not match this sweep; --restart discards it and starts the sweep over",
                                      where.empty() ? "the journal" : where, step, fmt::join(keys, "/")));
      }
      at = &*found;
    }
    return *at;
  }
};

// A screen from its samples per regime (a journaled record's): one regime's
// median, or several regimes' medians each over its copy's, summed, as the
// chooser's policy `both` ranks (summed as they are where a copy is missing).
Screen screen_from_samples(const ShapeResult& s, const std::vector<TimingRegime>& regimes,
                           const StepResult& screened) {
  const bool over_copy = regimes.size() > 1 && std::all_of(regimes.begin(), regimes.end(), [&](TimingRegime r) {
    return s.copy(r) && s.copy(r)->median_us > 0;
  });
  Screen screen;
  for (TimingRegime r : regimes) {
    const Timing t = timing_from_samples(screened.entry({"samples", regime_name(r)}).get<std::vector<double>>());
    screen.figure += over_copy ? t.median_us / s.copy(r)->median_us : t.median_us;
    screen.spread = std::max(screen.spread, t.spread());
    screen.timings.emplace_back(r, t);
  }
  return screen;
}

// Runs the sweep's timing steps: each one's record is computed here, or taken
// from the journal of a supervised sweep; a step that throws gets its failure
// as its record, so that one variant's error never ends the sweep.
class StepRunner {
 public:
  explicit StepRunner(Steps* steps) : steps_(steps) {}

  StepResult run(const std::string& step, std::chrono::milliseconds deadline,
                 const std::function<nlohmann::json()>& compute) const {
    if (const StepOutcome* earlier = steps_ ? steps_->recorded(step) : nullptr) {
      if (earlier->crashed()) return {step, {}, earlier->crash_description(), earlier->where};
      const std::string failure = is_failure_record(earlier->record) ? read_failure_record(earlier->record) : "";
      return {step, earlier->record, failure, earlier->where};
    }
    if (steps_) steps_->begin(step, deadline);
    StepResult result{step, {}, {}, {}};
    try {
      result.record = compute();
    } catch (const std::exception& e) {
      result.failure = e.what();
      result.record = failure_record_json(result.failure);
    }
    if (steps_) {
      steps_->finish(step, result.record);
      if (!result.ok()) steps_->after_failure();
    }
    return result;
  }

 private:
  Steps* steps_;
};

}  // namespace

std::vector<ShapeResult> results_from_verification(const KernelFamily& family, const std::vector<Shape>& shapes,
                                                   const VerifyStageResult& verified) {
  std::map<std::pair<std::string, std::string>, std::vector<const VerifyRecord*>> records;
  for (const VerifyRecord& r : verified.records) records[{r.shape, r.variant}].push_back(&r);
  std::vector<ShapeResult> results;
  for (const Shape& shape : shapes) {
    ShapeResult s;
    s.shape = shape;
    s.bytes_moved = family.bytes_moved(shape);
    for (const VariantBuild& b : verified.builds) {
      if (b.size != shape.size) continue;
      VariantResult v;
      v.variant = b.variant.name;
      v.params = b.variant.params;
      v.registers = b.outcome.kernel.resources.registers;
      v.spill_bytes = b.outcome.kernel.resources.spill_store_bytes + b.outcome.kernel.resources.spill_load_bytes;
      for (const VerifyRecord* r : records[{shape.name, b.variant.name}]) {
        ++v.cases_total;
        if (r->disposition == Disposition::passed) {
          ++v.cases_passed;
        } else if (v.failure_kind.empty()) {
          v.failure_kind = failure_kind(*r);
          v.failure = fmt::format("{}: {}", r->input_case, r->message);
        }
      }
      v.exact = v.cases_total > 0 && v.cases_passed == v.cases_total;
      s.variants.push_back(std::move(v));
    }
    results.push_back(std::move(s));
  }
  return results;
}

SweepResults run_sweep(const KernelFamily& family, GpuBackend& backend, const std::vector<Shape>& shapes,
                       const CompileCache& cache, const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto progress = [&](SweepProgress p) {
    if (options.on_progress) options.on_progress(p);
  };
  SweepResults results;
  results.device = device_record(backend.gpu());
  results.family = family.name();
  results.reference_recipe = family.reference_recipe();
  results.seed = options.seed;
  results.created = utc_now();

  const SupportKernels support = load_support_kernels(family, backend, cache);
  VerifyStageOptions stage;
  stage.variant_glob = options.variant_glob;
  stage.planted_crashes = options.planted_crashes;
  stage.selection = options.selection;
  stage.compile.jobs = options.jobs;
  stage.verify.seed = options.seed;
  stage.verify.steps = options.steps;
  stage.verify.deadlines = options.deadlines;
  std::size_t verified_runs = 0;
  stage.verify.on_record = [&](const VerifyRecord& r) {
    progress({"verify", ++verified_runs, 0, fmt::format("{} {}", r.shape, r.variant)});
  };
  const VerifyStageResult verified = run_verify_stage(family, backend, support, shapes, cache, stage);
  results.shapes = results_from_verification(family, shapes, verified);

  Timer timer(backend, options.timer);
  results.timing = timer.method();
  results.timing.noise_passes = options.noise_passes;
  const SearchStrategy& strategy = StrategyRegistry::instance().find(options.strategy);
  results.strategy = strategy.name();
  results.strategy_settings = strategy.settings();
  // One timer per screening effort: a screen is a single attempt, never measured
  // again for its spread, which is the strategy's to weigh.
  std::map<std::pair<int, int>, std::unique_ptr<Timer>> screeners;
  auto screener = [&](const ScreenEffort& effort) -> Timer& {
    std::unique_ptr<Timer>& screen_timer = screeners[{effort.repetitions, effort.iterations}];
    if (!screen_timer) {
      TimerOptions less = options.timer;
      less.repetitions = effort.repetitions;
      less.iterations = effort.iterations;
      less.max_attempts = 1;
      screen_timer = std::make_unique<Timer>(backend, less);
    }
    return *screen_timer;
  };
  const StepRunner step_runner(options.steps);
  std::size_t to_time = 0, timed = 0;
  for (const ShapeResult& s : results.shapes) {
    to_time += 1 + std::count_if(s.variants.begin(), s.variants.end(), [](const VariantResult& v) { return v.exact; });
  }
  std::map<std::string, std::unique_ptr<LoadedKernel>> loaded;
  auto kernel_for = [&](const VariantBuild& build) -> const LoadedKernel& {
    auto& k = loaded[build.outcome.kernel.name];
    if (!k) k = backend.load(build.outcome.kernel);
    return *k;
  };
  // The timer of one shape at a time, over its rotation's copies of the timing
  // case, all from one seed; made when a step first needs it (none when every
  // step of the shape is in the journal).
  std::optional<ShapeTimer> current_timer;
  std::string current_shape;
  auto timer_of = [&](const ShapeResult& s) -> ShapeTimer& {
    if (!current_timer || current_shape != s.shape.name) {
      current_timer.reset();
      const InputCase timing_case = family.timing_case(s.shape);
      const std::uint64_t seed = case_seed(options.seed, s.shape.name, timing_case.name);
      // The copies are made at once, each on a thread of its own: making one
      // is mostly the family's host-side input generation.
      std::vector<std::future<std::unique_ptr<Workload>>> made;
      const int copies = s.rotation ? s.rotation->copies : 1;
      for (int i = 0; i < copies; ++i) {
        made.push_back(std::async(std::launch::async, [&family, &backend, &support, &s, timing_case, seed] {
          return family.make_workload(backend, support, s.shape, timing_case, seed);
        }));
      }
      std::vector<std::unique_ptr<Workload>> workloads;
      for (auto& copy : made) workloads.push_back(copy.get());
      current_timer.emplace(timer, std::move(workloads), s.shape.name);
      current_shape = s.shape.name;
    }
    return *current_timer;
  };
  // A bound on what one step moves, for its deadline: every launch the timer
  // may make in `regimes` regimes, each with an L2 flush's bytes besides.
  const TimerOptions& t = options.timer;
  auto timing_deadline = [&](const ShapeResult& s, std::size_t regimes) {
    const double launches = static_cast<double>(t.max_attempts) * (t.warmup_launches + t.repetitions * t.iterations) *
                            t.launches_per_graph * static_cast<double>(regimes);
    return options.deadlines.for_bytes(launches * static_cast<double>(s.bytes_moved + 2 * results.device.l2_bytes));
  };

  // Samples per (shape, variant, regime), for merging with a later re-timing.
  std::map<std::tuple<std::string, std::string, TimingRegime>, std::vector<double>> samples;
  for (ShapeResult& s : results.shapes) {
    s.rotation = plan_rotation(s.bytes_moved, results.device.l2_bytes).rotation;
    const StepResult baselines =
        step_runner.run(baselines_step(s.shape.name), timing_deadline(s, 2 * kTimingRegimes.size()), [&] {
          nlohmann::json record;
          for (TimingRegime regime : kTimingRegimes) {
            record["copy"][regime_name(regime)] = timing_json(timer_of(s).copy(regime).timing);
            record["reference_chain"][regime_name(regime)] = timing_json(timer_of(s).reference_chain(regime).timing);
          }
          return record;
        });
    for (TimingRegime regime : kTimingRegimes) {
      if (!baselines.ok()) continue;
      s.copy(regime) = timing_from_json(baselines.entry({"copy", regime_name(regime)}), "copy");
      s.reference_chain(regime) =
          timing_from_json(baselines.entry({"reference_chain", regime_name(regime)}), "reference_chain");
    }
    progress({"time", ++timed, to_time, s.shape.name + " copy and reference chain"});
    std::vector<std::string> exact;
    for (const VariantResult& v : s.variants) {
      if (v.exact) exact.push_back(v.variant);
    }
    const ScreenMeasure screen = [&](const std::string& variant, int round,
                                     const ScreenEffort& effort) -> std::optional<Screen> {
      const VariantBuild* build = find_build(verified, s.shape.size, variant);
      progress({"time", timed, to_time, fmt::format("{} {} (screen, round {})", s.shape.name, variant, round)});
      const StepResult screened = step_runner.run(
          screen_step(s.shape.name, round, variant),
          timing_deadline(s, options.retime_regimes.size()), [&] {
            nlohmann::json record;
            for (TimingRegime regime : options.retime_regimes) {
              record["samples"][regime_name(regime)] =
                  timer_of(s).screen(screener(effort), regime, kernel_for(*build), build->variant).samples_us;
            }
            return record;
          });
      if (!screened.ok()) {
        variant_named(s, variant).failure = fmt::format("screening failed: {}", screened.failure);
        return std::nullopt;
      }
      return screen_from_samples(s, options.retime_regimes, screened);
    };
    const SearchDecision decision = strategy.decide(exact, screen, SearchContext{std::max(1, options.retime_top + 1)});
    for (const CutVariant& cut : decision.cut) {
      variant_named(s, cut.variant).screened_out = ScreenedOut{cut.round, cut.screen.timings};
    }
    const std::size_t timed_before = timed;
    for (const std::string& name : decision.fully_timed) {
      VariantResult& v = variant_named(s, name);
      const VariantBuild* build = find_build(verified, s.shape.size, v.variant);
      const StepResult timed_variant =
          step_runner.run(timing_step(s.shape.name, v.variant), timing_deadline(s, kTimingRegimes.size()), [&] {
            nlohmann::json record;
            for (TimingRegime regime : kTimingRegimes) {
              const Measurement m = timer_of(s).variant(regime, kernel_for(*build), build->variant);
              record["timing"][regime_name(regime)] = timing_json(m.timing);
              record["samples"][regime_name(regime)] = m.samples_us;
            }
            return record;
          });
      if (timed_variant.ok()) {
        for (TimingRegime regime : kTimingRegimes) {
          v.timing(regime) = timing_from_json(timed_variant.entry({"timing", regime_name(regime)}), "timing");
          samples[{s.shape.name, v.variant, regime}] =
              timed_variant.entry({"samples", regime_name(regime)}).get<std::vector<double>>();
        }
      } else {
        v.failure = fmt::format("timing failed: {}", timed_variant.failure);
        for (TimingRegime regime : kTimingRegimes) v.timing(regime).reset();
      }
      progress({"time", ++timed, to_time, s.shape.name + " " + v.variant});
    }
    timed = timed_before + exact.size();  // the variants not timed fully count as done
    progress({"time", timed, to_time, s.shape.name});
  }

  // The fastest few of each shape in each regime the chooser ranks by, timed
  // again in reverse order, their samples merged: a winner must hold up over
  // two separate measurements.
  std::size_t retimed = 0;
  const std::size_t to_retime = results.shapes.size() * options.retime_top * options.retime_regimes.size();
  for (ShapeResult& s : results.shapes) {
    for (TimingRegime regime : options.retime_regimes) {
      const std::vector<VariantResult*> ranked = fastest_timed(s, regime, options.retime_top);
      for (auto it = ranked.rbegin(); it != ranked.rend(); ++it) {
        VariantResult& v = **it;
        const VariantBuild* build = find_build(verified, s.shape.size, v.variant);
        const StepResult more = step_runner.run(
            retime_step(s.shape.name, regime, v.variant), timing_deadline(s, 1), [&] {
              return nlohmann::json{
                  {"samples", timer_of(s).variant(regime, kernel_for(*build), build->variant).samples_us}};
            });
        if (more.ok()) {
          std::vector<double>& merged = samples[{s.shape.name, v.variant, regime}];
          const auto added = more.entry({"samples"}).get<std::vector<double>>();
          merged.insert(merged.end(), added.begin(), added.end());
          v.timing(regime) = timing_from_samples(merged);
        }
        progress({"re-time", ++retimed, to_retime, fmt::format("{} {} {}", s.shape.name, v.variant, regime_name(regime))});
      }
    }
  }

  // Run-to-run noise: passes over every shape after the main timing, each
  // re-measuring the copy and the fastest few in every regime. The main
  // timing is the first pass; each figure is taken against its own pass's copy.
  if (options.noise_passes > 0) {
    // Per (shape, regime): the variants re-measured, and each one's copy-relative figure per pass.
    std::map<std::pair<std::string, TimingRegime>, std::map<std::string, std::vector<double>>> ratios;
    for (ShapeResult& s : results.shapes) {
      for (TimingRegime regime : kTimingRegimes) {
        const std::optional<Timing>& copy = s.copy(regime);
        if (!copy || copy->median_us <= 0) continue;
        for (VariantResult* v : fastest_timed(s, regime, options.noise_variants)) {
          ratios[{s.shape.name, regime}][v->variant].push_back(v->timing(regime)->median_us / copy->median_us);
        }
      }
    }
    std::size_t measured = 0;
    const std::size_t to_measure = results.shapes.size() * static_cast<std::size_t>(options.noise_passes);
    for (int pass = 0; pass < options.noise_passes; ++pass) {
      for (ShapeResult& s : results.shapes) {
        progress({"noise", ++measured, to_measure, fmt::format("pass {} {}", pass + 1, s.shape.name)});
        std::size_t regimes = 0, figures = 0;
        for (TimingRegime regime : kTimingRegimes) {
          if (const auto found = ratios.find({s.shape.name, regime}); found != ratios.end()) {
            ++regimes;
            figures += 1 + found->second.size();
          }
        }
        if (regimes == 0) continue;
        const StepResult pass_figures = step_runner.run(
            noise_step(pass + 1, s.shape.name), timing_deadline(s, figures), [&] {
              nlohmann::json record;
              for (TimingRegime regime : kTimingRegimes) {
                const auto found = ratios.find({s.shape.name, regime});
                if (found == ratios.end()) continue;
                record["copy"][regime_name(regime)] = timer_of(s).copy(regime).timing.median_us;
                for (const auto& [variant, per_pass] : found->second) {
                  const VariantBuild* build = find_build(verified, s.shape.size, variant);
                  record["variants"][regime_name(regime)][variant] =
                      timer_of(s).variant(regime, kernel_for(*build), build->variant).timing.median_us;
                }
              }
              return record;
            });
        if (!pass_figures.ok()) continue;
        for (TimingRegime regime : kTimingRegimes) {
          const auto found = ratios.find({s.shape.name, regime});
          if (found == ratios.end()) continue;
          const double copy_us = pass_figures.entry({"copy", regime_name(regime)}).get<double>();
          for (auto& [variant, per_pass] : found->second) {
            per_pass.push_back(pass_figures.entry({"variants", regime_name(regime), variant}).get<double>() / copy_us);
          }
        }
      }
    }
    for (ShapeResult& s : results.shapes) {
      for (TimingRegime regime : kTimingRegimes) {
        const auto found = ratios.find({s.shape.name, regime});
        if (found == ratios.end()) continue;
        RunToRunNoise noise{regime, 0, options.noise_passes + 1, static_cast<int>(found->second.size())};
        for (const auto& [variant, per_pass] : found->second) noise.noise = std::max(noise.noise, relative_range(per_pass));
        s.run_to_run_noise.push_back(noise);
      }
    }
  }
  results.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return results;
}

}  // namespace exactune
