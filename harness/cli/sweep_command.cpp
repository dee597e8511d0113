// exactune sweep: the main job. compile -> verify -> time -> results -> reports.
// On a GPU it writes reports/<gpu-slug>/<family>/; without one it does every stage it
// can (compiles for sm_90, verifies on the CPU) and says that timing needs a GPU.
// Part of the space (space/selection.hpp): --shard i/n for a fleet, --only
// heuristics.yaml for the CI gate; either writes its sweep.yaml alone. --devices
// runs one child sweep per GPU and merges them (cli/device_fleet.hpp).
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>

#include <exactune/space.hpp>

#include "cli/backend_choice.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/blaming_the_input.hpp"
#include "cli/device_fleet.hpp"
#include "cli/supervision_options.hpp"
#include "compile/compile_plan.hpp"
#include "compile/compiler.hpp"
#include "backends/gpu/cuda_driver.hpp"
#include "backends/gpu/gpu_backend.hpp"
#include "supervise/supervisor.hpp"
#include "util/progress.hpp"
#include "gate/gate_selection.hpp"
#include "space/selection.hpp"
#include "store/sweep_file.hpp"
#include "report/report_writer.hpp"
#include "choose/heuristics.hpp"
#include "choose/targets.hpp"
#include "strategies/strategy_registry.hpp"
#include "sweep/sweep.hpp"
#include "sweep/timing_steps.hpp"
#include "util/text_table.hpp"
#include "verify/verify_records.hpp"

namespace exactune::cli {

namespace {

struct SweepCliOptions {
  ShapeOptions shapes;
  CompileCliOptions compile;
  BackendOptions backend;
  SupervisionOptions supervision;
  std::uint64_t seed = 1;
  std::string out;
  TimerOptions timer;
  int retime_top = 3;
  int noise_passes = 2;
  std::string policy{policy_name(kDefaultPolicy)};
  // Part of the space (space/selection.hpp): --shard i/n, --only heuristics.yaml; --devices: every GPU at once.
  std::string shard;
  std::string only;
  std::string devices;
  int device = 0;
  std::string strategy{StrategyRegistry::kDefault};
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
    table.add_row({s.shape.name, s.shape.describe_parameters(), s.rotation ? fmt::format("{}", s.rotation->copies) : "-",
                   us(s.copy(regime)), us(s.reference_chain(regime)), best ? best->variant : "-",
                   best ? us(best->rotated) : "-", best ? us(best->l2_resident) : "-", best ? us(best->cold) : "-",
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

// What this sweep covers: --only's pairs, or every pair; then --shard's share of those.
struct Scope {
  Selection selection;
  std::optional<Shard> shard;
  std::string only;
};

Scope scope_of(const SweepCliOptions& options, const std::vector<Shape>& shapes) {
  const KernelFamily& family = options.shapes.family.family();
  Scope scope;
  scope.only = options.only;
  if (!options.only.empty()) {
    const Heuristics table = blaming_the_input([&] { return load_heuristics_file(options.only); });
    scope.selection = gate_selection(table, options.only, family, shapes, options.compile.variant_glob);
  }
  if (!options.shard.empty()) {
    scope.shard = parse_shard(options.shard);
    const std::vector<ShapeVariant> pairs =
        scope.selection.everything() ? space_pairs(family, shapes, options.compile.variant_glob)
                                     : std::vector<ShapeVariant>(scope.selection.pairs()->begin(),
                                                                 scope.selection.pairs()->end());
    scope.selection = shard_of(pairs, *scope.shard);
  }
  return scope;
}

// A narrowed run is a different run: its journal must not be resumed by another shard or table.
void add_scope(RunIdentity& identity, const Scope& scope) {
  if (scope.shard) identity["shard"] = fmt::format("{}/{}", scope.shard->index, scope.shard->count);
  if (!scope.only.empty()) identity["only"] = scope.only;
}

// The scope in words for the closing lines; "" for a whole sweep.
std::string scope_words(const Scope& scope) {
  std::string words;
  if (scope.shard) words += fmt::format(" shard {}/{}", scope.shard->index, scope.shard->count);
  if (!scope.only.empty()) words += fmt::format(" gate mode (only {})", scope.only);
  return words;
}

int sweep_on_gpu(const SweepCliOptions& options, const ShapeSet& shapes, const Scope& scope) {
  std::unique_ptr<GpuBackend> backend = open_gpu_backend(options.device);
  fmt::print(stderr, "sweep on GPU {}: {}{}\n", options.device, backend->gpu().summary(), scope_words(scope));
  const KernelFamily& family = options.shapes.family.family();
  // A narrowed sweep never lands on the whole sweep's reports: shards/<i>-of-<n>/ or gate/ beside them.
  const std::filesystem::path reports = std::filesystem::path("reports") / backend->gpu().slug() / family.name();
  const std::filesystem::path out =
      !options.out.empty() ? std::filesystem::path(options.out)
      : scope.shard        ? reports / "shards" / fmt::format("{}-of-{}", scope.shard->index, scope.shard->count)
      : !scope.only.empty() ? reports / "gate"
                            : reports;
  const std::vector<Shape> swept = scope.selection.shapes_of(shapes.shapes);
  RunIdentity identity = run_identity(*backend, family.name(), swept, options.seed,
                                      options.compile.variant_glob, options.supervision.plant_crash);
  add_scope(identity, scope);
  identity["timer"] = fmt::format("repetitions {}, launches per graph {}, max spread {}", options.timer.repetitions,
                                  options.timer.launches_per_graph, options.timer.max_spread);
  identity["retime top"] = std::to_string(options.retime_top);
  identity["noise passes"] = std::to_string(options.noise_passes);
  identity["policy"] = options.policy;
  identity["strategy"] = options.strategy;
  Journal journal =
      options.supervision.open_journal(out / "sweep.journal", "sweep", identity, sweep_journal_records());
  JournaledSteps steps = worker_steps(journal, *backend);
  SweepOptions sweep;
  sweep.steps = &steps;
  sweep.deadlines = options.supervision.deadlines(*backend);
  sweep.planted_crashes = options.supervision.plant_crash;
  sweep.variant_glob = options.compile.variant_glob;
  sweep.seed = options.seed;
  sweep.jobs = options.compile.jobs;
  sweep.timer = options.timer;
  sweep.retime_top = options.retime_top;
  const ChooserPolicy policy = policy_named(options.policy);
  sweep.retime_regimes = policy_regimes(policy);
  sweep.noise_passes = options.noise_passes;
  sweep.strategy = options.strategy;
  sweep.selection = scope.selection;
  std::map<std::string, std::unique_ptr<Progress>> stages;
  const std::size_t verify_runs = count_verify_runs(family, swept, sweep.variant_glob, scope.selection);
  sweep.on_progress = [&](const SweepProgress& p) {
    auto& bar = stages[p.stage];
    if (!bar) {
      for (auto& [name, other] : stages) {
        if (other) other->finish();
      }
      bar = std::make_unique<Progress>(p.stage, p.total ? p.total : verify_runs);
    }
    bar->advance(p.done, p.detail);
  };
  SweepResults results = run_sweep(family, *backend, swept, options.compile.cache(), sweep);
  for (auto& [name, bar] : stages) bar->finish();
  drop_unselected(results.shapes, scope.selection);
  results.shard = scope.shard;
  results.only = scope.only;

  fmt::print("{}", shape_table(results, policy));
  fmt::print("{}", failure_table(results));
  if (!options.supervision.plant_crash.empty()) {
    journal.remove();
    fmt::print("sweep with planted crashes: no reports written (its planted variants are tests of the harness, not "
               "evidence)\n");
    return kExitFailure;
  }
  std::vector<std::filesystem::path> files;
  if (results.narrowed()) {
    // Heuristics, header and summary choose across the whole space: a part of it writes its evidence only.
    write_sweep_file(results, out / "sweep.yaml");
    files.push_back(out / "sweep.yaml");
  } else {
    files = write_reports(results, out, targets_beside(out), framework_times_beside(out, results.family), policy);
  }
  journal.remove();
  std::size_t variants = 0, exact = 0;
  for (const ShapeResult& s : results.shapes) {
    for (const VariantResult& v : s.variants) {
      ++variants;
      exact += v.exact;
    }
  }
  fmt::print("sweep on {}{}: {} shapes, {}/{} (shape, variant) pairs exact, wall {:.1f} s; wrote {} files to {}\n",
             results.device.name, scope_words(scope), results.shapes.size(), exact, variants, results.wall_s,
             files.size(), out.string());
  if (scope.shard) {
    fmt::print("shard {}/{}: sweep.yaml only (heuristics and reports need the whole space); when every shard is "
               "done: exactune merge --out {} <the sweep.yaml of each shard>\n",
               scope.shard->index, scope.shard->count, reports.string());
  } else if (!scope.only.empty()) {
    fmt::print("gate mode: sweep.yaml only; next: {}\n", gate_command_after(scope.only, (out / "sweep.yaml").string()));
  }
  return exact == variants ? 0 : kExitFailure;
}

int sweep_without_gpu(const SweepCliOptions& options, const ShapeSet& shapes, const Scope& scope,
                      const std::string& why) {
  const auto start = std::chrono::steady_clock::now();
  const KernelFamily& family = options.shapes.family.family();
  // Compile for the H200's architecture: proves every variant builds and warms
  // nothing the CPU uses, but it is what the GPU will need.
  const std::vector<std::string> targets = resolve_targets({});
  CompilePlan plan = plan_compiles(family, shapes.sizes(), targets, options.compile.variant_glob);
  if (!scope.selection.everything()) {
    // A shard or gate mode builds its own pairs' kernels, not the whole space's.
    std::set<std::string> selected;
    for (const Shape& shape : shapes.shapes) {
      for (const Candidate& c : enumerate_space(family, shape.size)) {
        if (!c.valid() || !scope.selection.selects(shape.name, c.variant.name)) continue;
        for (const std::string& target : targets) selected.insert(family.variant_request(c.variant, shape.size, target).name);
      }
    }
    std::erase_if(plan.variants, [&](const CompileRequest& r) { return !selected.count(r.name); });
  }
  std::vector<CompileRequest> requests = plan.support;
  requests.insert(requests.end(), plan.variants.begin(), plan.variants.end());
  Progress compile_progress("compile", requests.size());
  CompileOptions compile_options;
  compile_options.jobs = options.compile.jobs;
  compile_options.on_progress = [&](const CompileProgress& p) { compile_progress.advance(p.done, p.last->request.name); };
  const CompileSummary compiled = summarize(compile_all(requests, options.compile.cache(), compile_options));
  compile_progress.finish();
  fmt::print("compile: {} kernels for {}: {} errors, {} with spills, cache hits {}\n", compiled.kernels,
             fmt::join(targets, ","), compiled.failures, compiled.with_spills, compiled.cache_hits);

  BackendOptions cpu = options.backend;
  cpu.cpu = true;
  std::unique_ptr<Backend> backend = cpu.open();
  const std::vector<Shape> verify_shapes = scope.selection.shapes_of(cpu.shapes_for(family, shapes));
  RunIdentity identity = run_identity(*backend, family.name(), verify_shapes, options.seed,
                                      options.compile.variant_glob, options.supervision.plant_crash);
  add_scope(identity, scope);
  Journal journal = options.supervision.open_journal(
      default_journal(options.compile.cache().directory(), "sweep", identity), "sweep", identity,
      verify_journal_records());
  JournaledSteps steps = worker_steps(journal, *backend);
  VerifyStageOptions stage;
  options.supervision.apply_to(stage, steps, *backend);
  stage.variant_glob = options.compile.variant_glob;
  stage.compile.jobs = options.compile.jobs;
  stage.verify.seed = options.seed;
  stage.selection = scope.selection;
  std::size_t verified = 0;
  Progress verify_progress("verify", count_verify_runs(family, verify_shapes, stage.variant_glob, scope.selection));
  stage.verify.on_record = [&](const VerifyRecord&) { verify_progress.advance(++verified); };
  const VerifyStageResult result = run_verify_stage(
      family, *backend, load_support_kernels(family, *backend, options.compile.cache()), verify_shapes,
      options.compile.cache(), stage);
  verify_progress.finish();
  journal.remove();
  const VerifySummary v = summarize(result.records);
  fmt::print("verify on {}{}: {} runs: {} passed, {} incorrect, {} failed, {} not run; {}/{} (shape, variant) pairs "
             "exact{}\n",
             backend->description(), scope_words(scope), v.records, v.passed, v.incorrect, v.failed, v.not_run, v.exact_shape_variants,
             v.shape_variants, cpu.note());
  fmt::print("time: skipped: timing needs a GPU ({}); no reports written. Run `exactune sweep` on a GPU machine.\n",
             why);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("sweep without a GPU: {} shapes compiled and verified on the CPU, wall {:.1f} s\n", shapes.shapes.size(),
             wall);
  return compiled.failures == 0 && v.all_passed() ? 0 : kExitFailure;
}

}  // namespace

void add_sweep_command(CLI::App& app, Run& run) {
  auto options = std::make_shared<SweepCliOptions>();
  CLI::App* command = app.add_subcommand(
      "sweep", "The main job: compile every variant, verify each bit for bit, time the exact ones (rotated past "
               "twice the L2, L2-resident and cold) against a copy of the same bytes and the reference chain, measure "
               "the run-to-run noise, and write reports/<gpu>/<family>/ (sweep.yaml, heuristics.yaml, "
               "exactune_heuristics.hpp, heuristics.json, summary.md, heatmaps). Without a GPU it compiles, verifies "
               "on the CPU and says that timing needs one.");
  options->shapes.add_to(*command);
  options->compile.add_to(*command);
  options->backend.add_to(*command);
  options->supervision.add_to(*command, "<out>/sweep.journal; without a GPU <cache>/journals/sweep-<hash>.journal");
  command->add_option("--seed", options->seed, "seed of the input generator")->capture_default_str();
  command->add_option("--out", options->out, "report folder (default: reports/<gpu-slug>/<family>)")
      ->check(nonempty_path());
  command->add_option("--repetitions", options->timer.repetitions, "timed repetitions per figure")
      ->check(CLI::Range(3, 100))
      ->capture_default_str();
  command->add_option("--launches-per-graph", options->timer.launches_per_graph,
                      "launches captured in the CUDA graph of a hot figure")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->add_option("--max-spread", options->timer.max_spread,
                      "re-measure a figure whose (max - min) / median exceeds this")
      ->check(finite_number_from(0.0, 1.0))
      ->capture_default_str();
  command->add_option("--retime-top", options->retime_top,
                      "fastest variants per shape timed again, in the policy's regimes, before choosing")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  CLI::Option* noise_passes = command->add_option(
      "--noise-passes", options->noise_passes,
      "separate passes after the main timing that re-measure the copy and the fastest few of every shape in every "
      "regime; sweep.yaml records their run-to-run noise, the gate's noise (0: none; with --only, 0 unless given: "
      "the gate judges a candidate by its baseline's noise)")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  command->add_option("--policy", options->policy,
                      "what the chooser ranks by, written into heuristics.yaml: rotated (hot, inputs cycled past "
                      "twice the L2), cold, or both (the sum of the two, each over its copy)")
      ->check(CLI::IsMember({"rotated", "cold", "both"}))
      ->capture_default_str();
  command->add_option("--strategy", options->strategy,
                      fmt::format("which exact variants are timed fully, every variant being verified all the "
                                  "same (default strategy: {}): {}",
                                  StrategyRegistry::kDefault, StrategyRegistry::instance().listing()))
      ->capture_default_str();
  command->add_option("--shard", options->shard,
                      "sweep shard i of n (i from 1): every n-th (shape, variant) pair of the sorted space, each shape's "
                      "copy and reference chain besides; writes sweep.yaml only (default --out: "
                      "reports/<gpu-slug>/<family>/shards/<i>-of-<n>); `exactune merge` joins the shards");
  command->add_option("--only", options->only,
                      "gate mode: verify and time only what this heuristics.yaml chose and its runners-up, on the "
                      "shapes its choices rest on; writes sweep.yaml only (default --out: "
                      "reports/<gpu-slug>/<family>/gate) and prints the gate command to run next")
      ->check(nonempty_path());
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
    if (!options->only.empty() && noise_passes->count() == 0) options->noise_passes = 0;
    run = [options] {
      StrategyRegistry::instance().find(options->strategy);  // an unknown name is refused before any work
      if (!options->shard.empty()) parse_shard(options->shard);  // refused in one line, before a worker starts
      if (!options->devices.empty()) {
        if (!options->shard.empty() || options->backend.cpu) {
          throw input_error("--devices shards the sweep over the GPUs itself: give it without --shard and --cpu");
        }
        const ShapeSet shapes = options->shapes.load();
        options->compile.require_variants_at(options->shapes.family.family(), shapes.sizes());
        if (!options->out.empty()) check_output_folder("--out", options->out);
        return sweep_on_devices(options->devices, options->out, options->shapes.family.family().name(),
                                policy_named(options->policy));
      }
      if (options->supervision.supervises()) return supervise_this_command();
      const ShapeSet shapes = options->shapes.load();
      options->compile.require_variants_at(options->shapes.family.family(), shapes.sizes());
      if (!options->out.empty()) check_output_folder("--out", options->out);
      const Scope scope = scope_of(*options, shapes.shapes);
      const auto no_gpu = why_no_gpu();
      if (no_gpu || options->backend.cpu) {
        return sweep_without_gpu(*options, shapes, scope, no_gpu ? *no_gpu : "--cpu was given");
      }
      return sweep_on_gpu(*options, shapes, scope);
    };
  });
}

}  // namespace exactune::cli
