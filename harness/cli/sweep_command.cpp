// exactune sweep: the main job. compile -> verify -> time -> results -> reports.
// On a GPU it writes reports/<gpu-slug>/<family>/; without one it does every stage it
// can (compiles for sm_90, verifies on the CPU) and says that timing needs a GPU.
// Part of the space (space/selection.hpp): --shard i/n for a fleet (--shard
// auto: from a job engine, space/shard_from_engine.hpp), --only
// heuristics.yaml for the CI gate; either writes its sweep.yaml alone. --devices
// runs one child sweep per GPU and merges them (cli/device_fleet.hpp).
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>

#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/gpu_backend.hpp"
#include "backends/gpu/sm_clock.hpp"
#include "choose/chooser.hpp"
#include "cli/backend_choice.hpp"
#include "cli/blaming_the_input.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/device_fleet.hpp"
#include "cli/supervision_options.hpp"
#include "compile/compile_summary.hpp"
#include "compile/compiler.hpp"
#include "space/selection.hpp"
#include "space/shard_from_engine.hpp"
#include "store/chooser_policy.hpp"
#include "store/heuristics.hpp"
#include "store/heuristics_file.hpp"
#include "strategies/strategy_registry.hpp"
#include "supervise/supervisor.hpp"
#include "sweep/sweep.hpp"
#include "sweep/sweep_plan.hpp"
#include "sweep/sweep_scope.hpp"
#include "sweep/sweep_without_gpu_plan.hpp"
#include "sweep/timing_steps.hpp"
#include "util/progress.hpp"
#include "util/text_table.hpp"
#include "verify/verify_records.hpp"

namespace exactune::cli {

namespace {

struct SweepCliOptions {
  ShapeOptions shapes;
  CompileCliOptions compile;
  BackendOptions backend;
  SupervisionOptions supervision;
  SweepRequest sweep;  // its shapes, variants, jobs and planted crashes come from the options above
  // --devices: every GPU at once.
  std::string devices;
  int device = 0;
};

std::string us(const std::optional<Timing>& t) { return t ? fmt::format("{:.2f}", t->median_us) : "-"; }

// Per shape: the roofline, the reference chain and the best exact variant by
// the policy, in the policy's regime, and the best's figure in every regime.
std::string shape_table(const SweepResults& results, ChooserPolicy policy) {
  const TimingRegime regime = policy_figure(policy);
  TextTable table({"shape", "parameters", "K", fmt::format("copy us ({})", regime_name(regime)),
                   fmt::format("reference chain us ({})", regime_name(regime)), "best exact variant", "rotated us",
                   "l2_resident us", "cold us", "x copy", "reference chain / best", "exact"});
  for (const ShapeResult& s : results.shapes) {
    const std::vector<const VariantResult*> ranked = ranked_by_policy(s, policy);
    const VariantResult* best = ranked.empty() ? nullptr : ranked.front();
    int exact = 0;
    for (const VariantResult& v : s.variants) exact += v.exact;
    const auto ratio = [](const std::optional<Timing>& a, const std::optional<Timing>& b) {
      return a && b && b->median_us > 0 ? fmt::format("{:.2f}", a->median_us / b->median_us) : std::string("-");
    };
    table.add_row({s.shape.name, s.shape.describe_parameters(),
                   s.rotation ? fmt::format("{}", s.rotation->copies) : "-", us(s.copy(regime)),
                   us(s.reference_chain(regime)), best ? best->variant : "-", best ? us(best->rotated) : "-",
                   best ? us(best->l2_resident) : "-", best ? us(best->cold) : "-",
                   best ? ratio(best->timing(regime), s.copy(regime)) : "-",
                   best ? ratio(s.reference_chain(regime), best->timing(regime)) : "-",
                   fmt::format("{}/{}", exact, s.variants.size())});
  }
  return table.render();
}

// Every (shape, variant) that is not exact or could not be timed, with why.
std::string failure_table(const SweepResults& results) {
  TextTable table({"shape", "variant", "failure"});
  std::size_t failures = 0;
  for (const ShapeResult& s : results.shapes) {
    for (const VariantResult& v : s.variants) {
      if (v.exact && v.failure.empty()) continue;
      ++failures;
      table.add_row({s.shape.name, v.variant,
                     fmt::format("{}{}", v.failure_kind.empty() ? "" : v.failure_kind + ": ", v.failure)});
    }
  }
  return failures ? table.render() : "";
}

// The sweep the options ask for, of `shapes`.
SweepRequest request_of(const SweepCliOptions& options, const ShapeSet& shapes) {
  SweepRequest request = options.sweep;
  request.shapes = shapes;
  request.variant_glob = options.compile.variant_glob;
  request.jobs = options.compile.jobs;
  request.planted_crashes = options.supervision.plant_crash;
  return request;
}

// What --only and --shard leave of the space; the --only file is input, blamed as such when unreadable.
SweepScope scope_of(const KernelFamily& family, const SweepRequest& request) {
  std::optional<Heuristics> only_table;
  if (!request.only.empty()) only_table = blaming_the_input([&] { return load_heuristics_file(request.only); });
  return sweep_scope(family, request.shapes.shapes, request.variant_glob, request.only, only_table, request.shard);
}

int sweep_on_gpu(const SweepCliOptions& options, const SweepRequest& request, const SweepScope& scope) {
  std::unique_ptr<GpuBackend> backend = open_gpu_backend(options.device);
  fmt::print(stderr, "sweep on GPU {}: {}{}\n", options.device, backend->gpu().summary(), scope.words());
  // The timer reads the SM clock after each figure; where it cannot, sweep.yaml has no clock record, and says why
  // nowhere: the log does.
  if (const SmClock clock(backend->gpu().pci_bus_id, backend->gpu().sm_clock_khz);
      !clock.unavailable_because().empty()) {
    fmt::print(stderr, "sweep: no SM clock is recorded with the figures: {}\n", clock.unavailable_because());
  }
  const KernelFamily& family = options.shapes.family.family();
  const SweepPlan plan = plan_sweep(family, request, scope, backend->gpu().slug());
  const RunIdentity identity = plan.identity(
      run_identity(*backend, family.name(), plan.shapes, request.seed, request.variant_glob, request.planted_crashes));
  Journal journal =
      options.supervision.open_journal(plan.out / "sweep.journal", "sweep", identity, sweep_journal_records());
  JournaledSteps steps = worker_steps(journal, *backend);
  SweepOptions sweep = plan.options;
  sweep.steps = &steps;
  sweep.deadlines = options.supervision.deadlines(*backend);
  std::map<std::string, std::unique_ptr<Progress>> stages;
  sweep.on_progress = [&](const SweepProgress& p) {
    auto& bar = stages[p.stage];
    if (!bar) {
      for (auto& [name, other] : stages) {
        if (other) other->finish();
      }
      bar = std::make_unique<Progress>(p.stage, p.total ? p.total : plan.verify_runs);
    }
    bar->advance(p.done, p.detail);
  };
  SweepResults results = run_sweep(family, *backend, plan.shapes, options.compile.cache(), sweep);
  for (auto& [name, bar] : stages) bar->finish();
  plan.narrow(results);

  fmt::print("{}", shape_table(results, plan.policy));
  fmt::print("{}", failure_table(results));
  if (!request.planted_crashes.empty()) {
    journal.remove();
    fmt::print(
        "sweep with planted crashes: no reports written (its planted variants are tests of the harness, not "
        "evidence)\n");
    return kExitFailure;
  }
  const std::vector<std::filesystem::path> files = plan.write(results);
  journal.remove();
  std::size_t variants = 0, exact = 0;
  for (const ShapeResult& s : results.shapes) {
    for (const VariantResult& v : s.variants) {
      ++variants;
      exact += v.exact;
    }
  }
  fmt::print("sweep on {}{}: {} shapes, {}/{} (shape, variant) pairs exact, wall {:.1f} s; wrote {} files to {}\n",
             results.device.name, scope.words(), results.shapes.size(), exact, variants, results.wall_s, files.size(),
             plan.out.string());
  if (scope.shard) {
    fmt::print(
        "shard {}/{}: sweep.yaml only (heuristics and reports need the whole space); when every shard is "
        "done: exactune merge --out {} <the sweep.yaml of each shard>\n",
        scope.shard->index, scope.shard->count, plan.reports.string());
  } else if (!scope.only.empty()) {
    fmt::print("gate mode: sweep.yaml only; next: {}\n", plan.gate_command());
  }
  return exact == variants ? 0 : kExitFailure;
}

int sweep_without_gpu(const SweepCliOptions& options, const SweepRequest& request, const SweepScope& scope,
                      const std::string& why) {
  const auto start = std::chrono::steady_clock::now();
  const KernelFamily& family = options.shapes.family.family();
  BackendOptions cpu = options.backend;
  cpu.cpu = true;
  // Compile for the H200's architecture: proves every variant builds and warms
  // nothing the CPU uses, but it is what the GPU will need.
  const std::vector<std::string> targets = resolve_targets({});
  const SweepWithoutGpuPlan plan =
      plan_sweep_without_gpu(family, request, scope, targets, cpu.shapes_for(family, request.shapes));
  Progress compile_progress("compile", plan.compiles.size());
  CompileOptions compile_options;
  compile_options.jobs = request.jobs;
  compile_options.on_progress = [&](const CompileProgress& p) {
    compile_progress.advance(p.done, p.last->request.name);
  };
  const CompileSummary compiled = summarize(compile_all(plan.compiles, options.compile.cache(), compile_options));
  compile_progress.finish();
  fmt::print("compile: {} kernels for {}: {} errors, {} with spills, cache hits {}\n", compiled.kernels,
             fmt::join(targets, ","), compiled.failures, compiled.with_spills, compiled.cache_hits);

  std::unique_ptr<Backend> backend = cpu.open();
  const RunIdentity identity = plan.identity(
      run_identity(*backend, family.name(), plan.shapes, request.seed, request.variant_glob, request.planted_crashes));
  Journal journal =
      options.supervision.open_journal(default_journal(options.compile.cache().directory(), "sweep", identity), "sweep",
                                       identity, verify_journal_records());
  JournaledSteps steps = worker_steps(journal, *backend);
  VerifyStageOptions stage = plan.stage;
  options.supervision.apply_to(stage, steps, *backend);
  std::size_t verified = 0;
  Progress verify_progress("verify", plan.verify_runs);
  stage.verify.on_record = [&](const VerifyRecord&) { verify_progress.advance(++verified); };
  const VerifyStageResult result =
      run_verify_stage(family, *backend, load_support_kernels(family, *backend, options.compile.cache()), plan.shapes,
                       options.compile.cache(), stage);
  verify_progress.finish();
  journal.remove();
  const VerifySummary v = summarize(result.records);
  fmt::print(
      "verify on {}{}: {} runs: {} passed, {} incorrect, {} failed, {} not run; {}/{} (shape, variant) pairs "
      "exact{}\n",
      backend->description(), scope.words(), v.records, v.passed, v.incorrect, v.failed, v.not_run,
      v.exact_shape_variants, v.shape_variants, cpu.note());
  fmt::print("time: skipped: timing needs a GPU ({}); no reports written. Run `exactune sweep` on a GPU machine.\n",
             why);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("sweep without a GPU: {} shapes compiled and verified on the CPU, wall {:.1f} s\n",
             request.shapes.shapes.size(), wall);
  return compiled.failures == 0 && v.all_passed() ? 0 : kExitFailure;
}

}  // namespace

void add_sweep_command(CLI::App& app, Run& run) {
  auto options = std::make_shared<SweepCliOptions>();
  CLI::App* command = app.add_subcommand(
      "sweep",
      "The main job: compile every variant, verify each bit for bit, time the exact ones (rotated past "
      "twice the L2, L2-resident and cold) against a copy of the same bytes and the reference chain, measure "
      "the run-to-run noise, and write reports/<gpu>/<family>/ (sweep.yaml, heuristics.yaml, "
      "exactune_heuristics.hpp, heuristics.json, summary.md, heatmaps). Without a GPU it compiles, verifies "
      "on the CPU and says that timing needs one.");
  options->shapes.add_to(*command);
  options->compile.add_to(*command);
  options->backend.add_to(*command);
  options->supervision.add_to(*command, "<out>/sweep.journal; without a GPU <cache>/journals/sweep-<hash>.journal");
  command->add_option("--seed", options->sweep.seed, "seed of the input generator")->capture_default_str();
  command->add_option("--out", options->sweep.out, "report folder (default: reports/<gpu-slug>/<family>)")
      ->check(nonempty_path());
  command
      ->add_option("--repetitions", options->sweep.timer.repetitions,
                   "timed repetitions per figure, of 10 samples each")
      ->check(CLI::Range(3, 100))
      ->capture_default_str();
  command
      ->add_option("--launches-per-graph", options->sweep.timer.launches_per_graph,
                   "launches captured in the CUDA graph of a hot figure")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command
      ->add_option("--min-replay-us", options->sweep.timer.min_replay_us,
                   "a hot replay holds fewer launches than --launches-per-graph where fewer already last this long at "
                   "the GPU's peak memory bandwidth (0: never fewer)")
      ->check(finite_number_from(0.0, 1e6))
      ->capture_default_str();
  command
      ->add_option("--max-spread", options->sweep.timer.max_spread,
                   "re-measure a figure whose robust spread (IQR / median) exceeds this")
      ->check(finite_number_from(0.0, 1.0))
      ->capture_default_str();
  command
      ->add_option("--retime-top", options->sweep.retime_top,
                   "fastest variants per shape timed again, in the policy's regimes, before choosing")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  CLI::Option* noise_passes = command
                                  ->add_option("--noise-passes", options->sweep.noise_passes,
                                               "separate passes after the main timing that re-measure the copy and the "
                                               "fastest few of every shape in every "
                                               "regime; sweep.yaml records their run-to-run noise, the gate's noise "
                                               "(0: none; with --only, 0 unless given: "
                                               "the gate judges a candidate by its baseline's noise)")
                                  ->check(CLI::Range(0, 20))
                                  ->capture_default_str();
  command
      ->add_option("--policy", options->sweep.policy,
                   "what the chooser ranks by, written into heuristics.yaml: rotated (hot, inputs cycled past "
                   "twice the L2), cold, or both (the sum of the two, each over its copy)")
      ->check(CLI::IsMember({"rotated", "cold", "both"}))
      ->capture_default_str();
  command
      ->add_option("--strategy", options->sweep.strategy,
                   fmt::format("which exact variants are timed fully, every variant being verified all the "
                               "same (default strategy: {}): {}",
                               StrategyRegistry::kDefault, StrategyRegistry::instance().listing()))
      ->capture_default_str();
  command->add_option(
      "--shard", options->sweep.shard,
      "sweep shard i of n (i from 1): every n-th (shape, variant) pair of the sorted space, each shape's "
      "copy and reference chain besides; writes sweep.yaml only (default --out: "
      "reports/<gpu-slug>/<family>/shards/<i>-of-<n>); `exactune merge` joins the shards. auto: i and n from "
      "a Slurm job array (SLURM_ARRAY_TASK_ID, _MIN, _MAX) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX "
      "with EXACTUNE_SHARD_COUNT)");
  command
      ->add_option("--only", options->sweep.only,
                   "gate mode: verify and time only what this heuristics.yaml chose and its runners-up, on the "
                   "shapes its choices rest on; writes sweep.yaml only (default --out: "
                   "reports/<gpu-slug>/<family>/gate) and prints the gate command to run next")
      ->check(nonempty_path());
  command
      ->add_option("--plant-slowdown", options->sweep.planted_slowdown,
                   "gate mode only, a test of the gate: build every variant about 1 + this fraction as slow (each "
                   "CTA held that much longer than its work took), to measure how often the gate catches it")
      ->check(finite_number_from(0.0, 1.0));
  command->add_option("--devices", options->devices,
                      "all, or GPU ordinals 0,1,...: one child sweep per GPU (--device d --shard i/k, its log in "
                      "<shards>/<i>/sweep.log), identical GPUs sharing a sweep merged into reports/<gpu-slug>/<family> "
                      "(or --out/<gpu-slug>), each GPU model its own");
  command->add_option("--device", options->device, "the GPU to sweep on, by ordinal")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->callback([&run, options, noise_passes] {
    // Gate mode measures a candidate, which the gate judges by its baseline's
    // noise, never its own: the noise passes would be time spent for nothing.
    if (!options->sweep.only.empty() && noise_passes->count() == 0) options->sweep.noise_passes = 0;
    run = [options] {
      StrategyRegistry::instance().find(options->sweep.strategy);  // an unknown name is refused before any work
      if (options->sweep.planted_slowdown > 0 && options->sweep.only.empty()) {
        throw input_error(
            "--plant-slowdown is for gate mode (--only): a sweep of kernels slowed on purpose is no evidence to "
            "report");
      }
      // --shard auto becomes the job engine's i/n here, in every process
      // (a worker reads the same environment); the supervisor says which.
      if (options->sweep.shard == "auto") {
        const EngineShard engine = shard_from_engine(process_environment());
        options->sweep.shard = fmt::format("{}/{}", engine.shard.index, engine.shard.count);
        if (options->supervision.supervises()) {
          fmt::print(stderr, "sweep: --shard auto is shard {} ({})\n", options->sweep.shard, engine.source);
        }
      }
      // Refused in one line, before a worker starts.
      if (!options->sweep.shard.empty()) parse_shard(options->sweep.shard);
      if (!options->devices.empty()) {
        if (!options->sweep.shard.empty() || options->backend.cpu) {
          throw input_error("--devices shards the sweep over the GPUs itself: give it without --shard and --cpu");
        }
        const ShapeSet shapes = options->shapes.load();
        options->compile.require_variants_at(options->shapes.family.family(), shapes.sizes());
        if (!options->sweep.out.empty()) check_output_folder("--out", options->sweep.out);
        return sweep_on_devices(options->devices, options->sweep.out, options->shapes.family.family().name(),
                                policy_named(options->sweep.policy));
      }
      if (options->supervision.supervises()) return supervise_this_command();
      const ShapeSet shapes = options->shapes.load();
      options->compile.require_variants_at(options->shapes.family.family(), shapes.sizes());
      if (!options->sweep.out.empty()) check_output_folder("--out", options->sweep.out);
      const SweepRequest request = request_of(*options, shapes);
      const SweepScope scope = scope_of(options->shapes.family.family(), request);
      const auto no_gpu = why_no_gpu();
      if (no_gpu || options->backend.cpu) {
        return sweep_without_gpu(*options, request, scope, no_gpu ? *no_gpu : "--cpu was given");
      }
      return sweep_on_gpu(*options, request, scope);
    };
  });
}

}  // namespace exactune::cli
