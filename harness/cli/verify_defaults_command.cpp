// exactune verify-defaults: verifies, at every size the family serves, each
// configuration its tables can return outside a tuned (variant, size) pair —
// the global default, every device default of reports/*/<family>/heuristics.yaml,
// their narrowed forms and the tuned buckets' narrowed forms — and writes the
// record `exactune tables` and `exactune emit-header` serve defaults from.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

#include "backends/gpu/device_info.hpp"
#include "cli/backend_choice.hpp"
#include "cli/blaming_the_input.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "report/file_set.hpp"
#include "store/defaults_record.hpp"
#include "store/family_tables.hpp"
#include "sweep/defaults_verification.hpp"
#include "util/progress.hpp"
#include "verify/verify_stage.hpp"

namespace exactune::cli {

void add_verify_defaults_command(CLI::App& app, Run& run) {
  struct Options {
    ShapeOptions shapes;
    BackendOptions backend;
    std::string shape;
    std::vector<int> sizes;
    std::string reports = "reports";
    std::string out;
    std::string cache_dir;
    int jobs = 0;
    int gpu_rows = 0;  // 0: the whole shape
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "verify-defaults",
      "Verify every configuration the family's tables return outside a tuned (variant, size) pair (global default, "
      "device defaults, their narrowed forms, tuned buckets' narrowed forms) at every size the family serves, and "
      "write the record the tables serve defaults from (failures recorded, exit 1)");
  options->shapes.add_to(*command);
  options->backend.add_to(*command);
  command->add_option("--shape", options->shape,
                      "the shape verified at each size, its size parameter set to the size (default: the first of "
                      "the shape set)");
  command->add_option("--sizes", options->sizes, "only these sizes (default: every size the family serves)");
  command
      ->add_option("--gpu-rows", options->gpu_rows,
                   fmt::format("on a GPU: the shape's first N rows at each size, at most {} (default: the whole "
                               "shape). Each size's inputs are made on the host, so a whole shape of some 2000 "
                               "rows costs about 20 minutes a family; ci/gpu.sh passes 66 (for a shape of two "
                               "batch elements, 33 rows of each: a partial last group for every rows per CTA "
                               "above 1)",
                               kMaxCpuRows))
      ->check(whole_number_from(1, kMaxCpuRows))
      ->excludes("--cpu");
  command->add_option("--reports", options->reports, "the folder of <gpu-slug>/<family>/heuristics.yaml")
      ->capture_default_str()
      ->check(nonempty_path());
  command
      ->add_option("--out", options->out,
                   "the record to write (default: <reports>/tables/<family>/verified_defaults.yaml with --cpu, "
                   "else <reports>/<gpu-slug>/<family>/verified_defaults.yaml: the GPU's own evidence)")
      ->check(nonempty_path());
  add_cache_and_jobs_options(*command, options->cache_dir, options->jobs);
  command->callback([&run, options] {
    run = [options] {
      if (!options->out.empty()) check_output_file("--out", options->out);
      const KernelFamily& family = options->shapes.family.family();
      const ShapeSet set = options->shapes.load();
      const Shape* shape = &set.shapes.front();
      if (!options->shape.empty()) {
        const auto it = std::find_if(set.shapes.begin(), set.shapes.end(),
                                     [&](const Shape& s) { return s.name == options->shape; });
        if (it == set.shapes.end())
          throw input_error(fmt::format("--shape {}: no such shape in {}", options->shape, set.source));
        shape = &*it;
      }
      std::vector<int> sizes = served_sizes(family);
      if (!options->sizes.empty()) {
        for (int s : options->sizes) {
          if (std::find(sizes.begin(), sizes.end(), s) == sizes.end()) {
            throw input_error(fmt::format("--sizes {}: {}", s, family.parameter_problem(family.size_parameter(), s)));
          }
        }
        sizes = options->sizes;
        std::sort(sizes.begin(), sizes.end());
      }
      const std::filesystem::path reports = options->reports;
      const FamilyTables tables = blaming_the_input([&] {
        for (FamilyTables& t : tables_by_family(load_swept_heuristics(reports))) {
          if (t.family == family.name()) return t;
        }
        throw input_error(
            fmt::format("{}: no */{}/heuristics.yaml: no defaults to verify", reports.string(), family.name()));
      });
      const std::vector<ConfigurationToVerify> plan = configurations_to_verify(family, tables, sizes);

      // The command that reproduces the record, without the paths of this machine.
      std::string reproduce = fmt::format("exactune verify-defaults --family {}", family.name());
      if (options->backend.cpu) reproduce += fmt::format(" --cpu --rows {}", options->backend.cpu_rows);
      if (options->gpu_rows > 0) reproduce += fmt::format(" --gpu-rows {}", options->gpu_rows);
      if (!options->shape.empty()) reproduce += " --shape " + options->shape;
      if (!options->shapes.shapes_file.empty()) reproduce += " --shapes " + options->shapes.shapes_file;
      if (!options->sizes.empty()) reproduce += fmt::format(" --sizes {}", fmt::join(sizes, " "));

      std::unique_ptr<Backend> backend = options->backend.open();
      // A GPU's record is its own evidence, beside its heuristics.yaml; the host's serves the GPUs without one.
      const std::optional<GpuDescription> gpu =
          options->backend.cpu ? std::nullopt : std::optional<GpuDescription>(describe_gpu(0));
      const std::filesystem::path out = !options->out.empty() ? std::filesystem::path(options->out)
                                                              : reports / (gpu ? gpu->slug() : std::string("tables")) /
                                                                    defaults_record_path(family.name());
      const CompileCache cache = writable_cache(options->cache_dir);
      std::size_t total = 0;
      for (const ConfigurationToVerify& c : plan) {
        for (int size : c.sizes) total += family.exclusion(c.configuration.params, size).empty();
      }
      fmt::print(stderr, "verify-defaults on {}: {} configurations, {} valid (configuration, {}) pairs{}\n",
                 backend->description(), plan.size(), total, family.size_parameter(), options->backend.note());
      DefaultsVerificationOptions verification;
      verification.rows = options->backend.cpu    ? options->backend.cpu_rows
                          : options->gpu_rows > 0 ? options->gpu_rows
                                                  : static_cast<int>(shape->rows());
      verification.stage.compile.jobs = options->jobs;
      Progress progress("verify-defaults", total);
      std::size_t finished = 0, current = 0;
      verification.on_size = [&](const std::string& variant, std::size_t done, std::size_t of) {
        if (done == of)
          finished += of, current = 0;
        else
          current = done;
        progress.advance(finished + current, variant);
      };
      const auto start = std::chrono::steady_clock::now();
      DefaultsRecord record = verify_configurations(family, *backend, load_support_kernels(family, *backend, cache),
                                                    cache, *shape, plan, verification);
      progress.finish();
      record.command = reproduce;
      if (gpu) record.device = gpu->name;
      blaming_the_input([&] { write_file_whole(out, to_defaults_yaml(record)); });
      std::size_t failed = 0;
      for (const VerifiedConfiguration& c : record.configurations) {
        fmt::print("{}: verified {}{}\n", c.variant,
                   fmt::join(std::vector<std::string>([&] {
                               std::vector<std::string> texts;
                               for (const SizeRange& r : c.verified) texts.push_back(to_string(r));
                               return texts;
                             }()),
                             ", "),
                   c.failed.empty() ? ""
                                    : fmt::format("; FAILED at {} sizes, first {}: {}", c.failed.size(),
                                                  c.failed.front().size, c.failed.front().first_failure));
        failed += c.failed.size();
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fmt::print("wrote {} ({:.0f} s; {} failures)\n", out.string(), seconds, failed);
      return failed == 0 ? 0 : kExitFailure;
    };
  });
}

}  // namespace exactune::cli
