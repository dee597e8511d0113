// exactune sweep: the main job. compile -> verify -> time -> results -> reports,
// doing every stage this machine can: without a GPU it compiles for sm_90,
// verifies on the CPU, and says that timing needs a GPU.
#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "backend_choice.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "compile_plan.hpp"
#include "compiler.hpp"
#include "cuda_driver.hpp"
#include "layer_norm_modulate_family.hpp"
#include "progress.hpp"
#include "verify_stage.hpp"

namespace exactune::cli {

void add_sweep_command(CLI::App& app, Run& run) {
  struct Options {
    ShapeOptions shapes;
    CompileCliOptions compile;
    BackendOptions backend;
    std::uint64_t seed = 1;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "sweep", "The main job: compile every variant, verify each bit for bit, time the exact ones (GPU), and write "
               "the per-GPU tables. Without a GPU it compiles, verifies on the CPU and reports that timing needs one.");
  options->shapes.add_to(*command);
  options->compile.add_to(*command);
  options->backend.add_to(*command);
  command->add_option("--seed", options->seed, "seed of the input generator")->capture_default_str();
  command->callback([&run, options] {
    run = [options] {
      const auto start = std::chrono::steady_clock::now();
      const ShapeSet shapes = options->shapes.load();
      const KernelFamily& family = layer_norm_modulate_family();
      const auto no_gpu = why_no_gpu();
      BackendOptions backend_options = options->backend;
      backend_options.cpu = backend_options.cpu || no_gpu.has_value();

      // Compile for the GPU (its own architecture, or sm_90 without one): proves
      // every variant builds, and warms the cache the GPU stages use.
      const std::vector<std::string> targets = resolve_targets({});
      const CompilePlan plan = plan_compiles(family, shapes.hidden_sizes(), targets, options->compile.variant_glob);
      std::vector<CompileRequest> requests = plan.support;
      requests.insert(requests.end(), plan.variants.begin(), plan.variants.end());
      Progress compile_progress("compile", requests.size());
      CompileOptions compile_options;
      compile_options.jobs = options->compile.jobs;
      compile_options.on_progress = [&](const CompileProgress& p) { compile_progress.advance(p.done, p.last->request.name); };
      const CompileSummary compiled = summarize(compile_all(requests, options->compile.cache(), compile_options));
      compile_progress.finish();
      fmt::print("compile: {} kernels for {}: {} errors, {} with spills, cache hits {}\n", compiled.kernels,
                 fmt::join(targets, ","), compiled.failures, compiled.with_spills, compiled.cache_hits);

      std::unique_ptr<Backend> backend = backend_options.open();
      const std::vector<Shape> verify_shapes = backend_options.shapes_for(shapes);
      VerifyStageOptions stage;
      stage.variant_glob = options->compile.variant_glob;
      stage.compile.jobs = options->compile.jobs;
      stage.verify.seed = options->seed;
      std::size_t verified = 0;
      Progress verify_progress("verify", 0);
      stage.verify.on_record = [&](const VerifyRecord&) { verify_progress.advance(++verified); };
      const VerifyStageResult verified_result =
          run_verify_stage(family, *backend, load_support_kernels(family, *backend, options->compile.cache()), verify_shapes,
                           options->compile.cache(), stage);
      verify_progress.finish();
      const VerifySummary v = summarize(verified_result.records);
      fmt::print("verify on {}: {} runs: {} passed, {} incorrect, {} failed, {} not run; {}/{} (shape, variant) pairs "
                 "exact{}\n",
                 backend->description(), v.records, v.passed, v.incorrect, v.failed, v.not_run, v.exact_shape_variants,
                 v.shape_variants, backend_options.note());

      if (no_gpu) {
        fmt::print("time: skipped: timing needs a GPU ({}); run `exactune sweep` on the GPU machine\n", *no_gpu);
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print("sweep: {} shapes, wall {:.1f} s\n", shapes.shapes.size(), wall);
      return compiled.failures == 0 && v.all_passed() ? 0 : kExitFailure;
    };
  });
}

}  // namespace exactune::cli
