// exactune verify: every variant, every shape, every input case, bit for bit
// against the aten-equivalent reference, on the GPU or (--cpu) on the CPU.
#include <fmt/format.h>

#include <map>
#include <memory>

#include <exactune/space.hpp>

#include "backends/gpu/gpu_backend.hpp"
#include "cli/backend_choice.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/supervision_options.hpp"
#include "space/compile_plan.hpp"
#include "supervise/supervisor.hpp"
#include "util/progress.hpp"
#include "util/text_table.hpp"
#include "verify/verify_records.hpp"
#include "verify/verify_stage.hpp"

namespace exactune::cli {

namespace {

// One row per (shape, variant): how many cases passed, and the first failure.
std::string verify_table(const std::vector<VerifyRecord>& records) {
  struct Row {
    std::size_t passed = 0, total = 0;
    std::string first_failure;
  };
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, Row> rows;
  for (const VerifyRecord& r : records) {
    const auto key = std::make_pair(r.shape, r.variant);
    if (!rows.count(key)) order.push_back(key);
    Row& row = rows[key];
    ++row.total;
    if (r.disposition == Disposition::passed) {
      ++row.passed;
    } else if (row.first_failure.empty()) {
      row.first_failure = fmt::format("{} [{}]: {}", to_string(r.disposition), r.input_case, r.message);
    }
  }
  TextTable table({"shape", "variant", "cases", "result"});
  for (const auto& key : order) {
    const Row& row = rows[key];
    table.add_row({key.first, key.second, fmt::format("{}/{}", row.passed, row.total),
                   row.first_failure.empty() ? "exact" : row.first_failure});
  }
  return table.render();
}

}  // namespace

void add_verify_command(CLI::App& app, Run& run) {
  struct Options {
    ShapeOptions shapes;
    CompileCliOptions compile;
    BackendOptions backend;
    SupervisionOptions supervision;
    std::uint64_t seed = 1;
    int planted_fault = 0;
    bool table = true;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "verify",
      "Run every valid variant on every shape and input case and compare its bf16 output bit for bit with "
      "the aten-equivalent reference (GPU, or --cpu to run the same templates on the CPU)");
  options->shapes.add_to(*command);
  options->compile.add_to(*command);
  options->backend.add_to(*command);
  options->supervision.add_to(*command, "<cache>/journals/verify-<hash of the settings>.journal");
  command->add_option("--seed", options->seed, "seed of the input generator")->capture_default_str();
  command
      ->add_option("--plant-fault", options->planted_fault,
                   "build every variant with a deliberate fault (1: swapped mean-FMA operands, 2: a skipped bf16 "
                   "rounding, 3: reversed shuffle offsets, 4: one set of warp totals in a persistent grid, a race "
                   "that shows on the CPU under EXACTUNE_HOST_SCHEDULE=ahead, 5: chunks in the wrong lane group, "
                   "6: folded counts off by one, 7: warp totals in the wrong slots, 8: a token-major tile read "
                   "with the wrong swizzle, 9: a gated residual x + gate * h as one FMA, 10: its product not rounded "
                   "to bf16 before the add, 11: pass 2 reading x where it must read the residual), to see the verifier "
                   "catch it")
      ->check(CLI::Range(0, 11));
  command->add_flag("!--no-table", options->table, "print only the summary line");
  command->callback([&run, options] {
    run = [options] {
      if (options->supervision.supervises()) return supervise_this_command();
      std::unique_ptr<Backend> backend = options->backend.open();
      const KernelFamily& family = options->shapes.family.family();
      const ShapeSet shape_set = options->shapes.load();
      options->compile.require_variants_at(family, shape_set.sizes());
      const std::vector<Shape> shapes = options->backend.shapes_for(family, shape_set);
      RunIdentity identity = run_identity(*backend, family.name(), shapes, options->seed, options->compile.variant_glob,
                                          options->supervision.plant_crash);
      identity["planted fault"] = std::to_string(options->planted_fault);
      Journal journal =
          options->supervision.open_journal(default_journal(options->compile.cache().directory(), "verify", identity),
                                            "verify", identity, verify_journal_records());
      JournaledSteps steps = worker_steps(journal, *backend);
      VerifyStageOptions stage;
      options->supervision.apply_to(stage, steps, *backend);
      stage.variant_glob = options->compile.variant_glob;
      if (options->planted_fault)
        stage.variant_defines.push_back(fmt::format("EXACTUNE_PLANTED_FAULT={}", options->planted_fault));
      stage.compile.jobs = options->compile.jobs;
      stage.verify.seed = options->seed;
      std::size_t verified = 0;
      Progress verify_progress("verify", count_verify_runs(family, shapes, stage.variant_glob));
      stage.verify.on_record = [&](const VerifyRecord& r) {
        verify_progress.advance(++verified, fmt::format("{} {} {}", r.shape, r.variant, r.input_case));
      };
      fmt::print(stderr, "verify on {}{}\n", backend->description(), options->backend.note());
      const VerifyStageResult result =
          run_verify_stage(family, *backend, load_support_kernels(family, *backend, options->compile.cache()), shapes,
                           options->compile.cache(), stage);
      verify_progress.finish();
      if (options->table) fmt::print("{}", verify_table(result.records));
      const VerifySummary s = summarize(result.records);
      fmt::print(
          "verify on {}: {} shapes, {} variant builds, {} runs: {} passed, {} incorrect, {} failed, {} not run; "
          "{}/{} (shape, variant) pairs exact{}\n",
          backend->target(), shapes.size(), result.builds.size(), s.records, s.passed, s.incorrect, s.failed, s.not_run,
          s.exact_shape_variants, s.shape_variants, options->backend.note());
      journal.remove();
      return s.all_passed() ? 0 : kExitFailure;
    };
  });
}

}  // namespace exactune::cli
