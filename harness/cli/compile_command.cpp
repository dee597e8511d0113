// exactune compile: NVRTC-compile every valid variant for the shape set's
// sizes and the chosen architectures, through the cache; a table, then a summary.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include <exactune/error.hpp>

#include "cli/blaming_the_input.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "compile/compile_summary.hpp"
#include "compile/compiler.hpp"
#include "report/file_set.hpp"
#include "space/compile_plan.hpp"
#include "util/progress.hpp"
#include "util/text_table.hpp"

namespace exactune::cli {

namespace {

std::string resources_cell(const CompileOutcome& o) {
  const KernelResources& r = o.kernel.resources;
  return fmt::format("{:>3} regs  {:>4} B spill  {:>4} B smem", r.registers, r.spill_store_bytes + r.spill_load_bytes,
                     r.shared_bytes);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Made before compiling, so that a folder that cannot be made costs no compile.
void make_binary_folder(const std::string& directory) {
  check_output_folder("--save-binaries", directory);
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw input_error(fmt::format("--save-binaries {}: cannot create the folder: {}", directory, ec.message()));
}

void save_binaries(const std::vector<CompileOutcome>& outcomes, const std::string& directory) {
  std::vector<GeneratedFile> binaries;
  for (const CompileOutcome& o : outcomes) {
    if (!o.ok) continue;
    binaries.push_back(
        {fmt::format("{}.{}.cubin", o.request.name, o.request.target), std::string(o.kernel.binary_bytes())});
    // The cubin is its NVRTC batch's, with the batch's other kernels: the entry names this one's function.
    binaries.push_back({fmt::format("{}.{}.entry", o.request.name, o.request.target), o.kernel.entry + "\n"});
  }
  blaming_the_input([&] { write_file_set(directory, binaries); });
}

}  // namespace

void add_compile_command(CLI::App& app, Run& run) {
  struct Options {
    std::vector<std::string> arch;
    ShapeOptions shapes;
    CompileCliOptions compile;
    bool table = true;
    std::string binary_dir;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command =
      app.add_subcommand("compile",
                         "JIT-compile (NVRTC) every valid variant for each size of the shape set, through the "
                         "on-disk cache; print registers, spills and compile time. Needs no GPU.");
  command
      ->add_option("--arch", options->arch,
                   "GPU architectures, e.g. --arch sm_90 --arch sm_100 (default: the local GPU's, else sm_90)")
      ->delimiter(',');
  options->shapes.add_to(*command);
  options->compile.add_to(*command);
  command->add_flag("!--no-table", options->table, "print only the summary line, not the per-kernel table");
  command
      ->add_option("--save-binaries", options->binary_dir,
                   "also write each compiled kernel to DIR/<kernel>.<target>.cubin and its function's name to "
                   "<kernel>.<target>.entry, for reading with cuobjdump -sass -fun")
      ->check(nonempty_path());
  command->callback([&run, options] {
    run = [options] {
      const auto start = std::chrono::steady_clock::now();
      const std::vector<std::string> targets = resolve_targets(options->arch);
      const ShapeSet shapes = options->shapes.load();
      options->compile.require_variants_at(options->shapes.family.family(), shapes.sizes());
      if (!options->binary_dir.empty()) make_binary_folder(options->binary_dir);
      const CompileCache cache = options->compile.cache();
      const CompilePlan plan =
          plan_compiles(options->shapes.family.family(), shapes.sizes(), targets, options->compile.variant_glob);
      std::vector<CompileRequest> requests = plan.support;
      requests.insert(requests.end(), plan.variants.begin(), plan.variants.end());

      Progress progress("compile", requests.size());
      CompileOptions compile_options;
      compile_options.jobs = options->compile.jobs;
      compile_options.on_progress = [&](const CompileProgress& p) { progress.advance(p.done, p.last->request.name); };
      const std::vector<CompileOutcome> outcomes = compile_all(requests, cache, compile_options);
      progress.finish();
      if (!options->binary_dir.empty()) save_binaries(outcomes, options->binary_dir);

      if (options->table) {
        TextTable table({"kernel", "target", "resources", "compile", "status"});
        for (const CompileOutcome& o : outcomes) {
          table.add_row({o.request.name, o.request.target, o.ok ? resources_cell(o) : "-",
                         o.cache_hit ? "cached" : fmt::format("{:.0f} ms", o.compile_ms),
                         o.ok ? (o.kernel.resources.spills() ? "SPILLS" : "ok") : "FAILED: " + first_line(o.log)});
        }
        fmt::print("{}", table.render());
      }
      // The first few logs in full; the rest are in the table.
      constexpr int kFullLogs = 3;
      int shown = 0;
      for (const CompileOutcome& o : outcomes) {
        if (!o.ok && shown++ < kFullLogs) {
          fmt::print(stderr, "\n{} ({}) failed to compile:\n{}\n", o.request.name, o.request.target, o.log);
        }
      }
      const CompileSummary s = summarize(outcomes);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print(
          "compile: {} variants + {} support kernels for {} ({} combinations excluded): {} errors, {} with "
          "spills, max {} registers, wall {:.1f} s, cache hits {}/{}{}\n",
          plan.variants.size(), plan.support.size(), fmt::join(targets, ","), plan.excluded, s.failures, s.with_spills,
          s.max_registers, wall, s.cache_hits, s.kernels,
          s.gpu_kernels > s.distinct_code
              ? fmt::format("; {} distinct machine codes among {} GPU kernels", s.distinct_code, s.gpu_kernels)
              : "");
      return s.failures == 0 ? 0 : kExitFailure;
    };
  });
}

}  // namespace exactune::cli
