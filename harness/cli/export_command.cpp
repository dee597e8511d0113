// exactune export: the kernels the runtime can serve from the tables, compiled
// for each family and GPU architecture and written as cubins with an index
// (compile/kernel_export.hpp), so that a runtime installed with them (the
// wheel's) loads them instead of compiling. Which configurations: the rule of
// runtime/export_selection.hpp; --every-size takes every size the tables serve.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include <exactune/error.hpp>
#include <exactune/family_registry.hpp>
#include <exactune/space.hpp>

#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "compile/compiler.hpp"
#include "compile/kernel_export.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "runtime/export_selection.hpp"
#include "runtime/runtime_tables.hpp"
#include "shapes/shape_file.hpp"
#include "util/content_hash.hpp"
#include "util/progress.hpp"
#include "util/text_table.hpp"

namespace exactune::cli {

namespace {

struct Options {
  std::string out;
  std::vector<std::string> families;
  std::vector<std::string> arch;
  bool every_size = false;
  bool dry_run = false;
  std::string cache_dir;
  int jobs = 0;
};

// One family on one architecture: what it exports.
struct Slice {
  const KernelFamily* family = nullptr;
  std::string arch;
  std::vector<int> sizes;
  std::vector<ExportedConfiguration> configurations;
};

// The families to export: those named, else every family of this program the tables hold.
std::vector<const KernelFamily*> chosen_families(const Options& o, const RuntimeTables& tables) {
  std::vector<const KernelFamily*> out;
  if (o.families.empty()) {
    for (const KernelFamily* f : FamilyRegistry::all()) {
      if (tables.find(f->name())) out.push_back(f);
    }
    if (out.empty()) throw input_error(fmt::format("{} hold no table of a family of this program", tables.source));
    return out;
  }
  for (const std::string& name : o.families) {
    const KernelFamily& f = FamilyRegistry::find(name);
    if (!tables.find(name)) throw input_error(fmt::format("--family {}: {} hold no table of it", name, tables.source));
    if (std::find(out.begin(), out.end(), &f) == out.end()) out.push_back(&f);
  }
  return out;
}

std::vector<Slice> plan(const Options& o, const RuntimeTables& tables) {
  const std::vector<std::string> given_archs = o.arch.empty() ? std::vector<std::string>{} : resolve_targets(o.arch);
  std::vector<Slice> slices;
  for (const KernelFamily* family : chosen_families(o, tables)) {
    const FamilyTable& table = *tables.find(family->name());
    const std::vector<std::string> archs = given_archs.empty() ? table_archs(table) : given_archs;
    for (const std::string& arch : archs) {
      Slice s{family, arch, {}, {}};
      s.sizes = o.every_size ? every_served_size(*family, table, arch)
                             : export_sizes(*family, table, arch, default_shapes(*family).sizes());
      s.configurations = served_configurations(*family, table, arch, s.sizes);
      slices.push_back(std::move(s));
    }
  }
  return slices;
}

// The command line the index's first line names: what decides its contents
// (not where it was written, nor the cache or the parallelism).
std::string generating_command(const Options& o) {
  std::string command = "exactune export --out DIR";
  for (const std::string& f : o.families) command += " --family " + f;
  for (const std::string& a : o.arch) command += " --arch " + a;
  if (o.every_size) command += " --every-size";
  return command;
}

std::string size_range(const std::vector<int>& sizes) {
  if (sizes.empty()) return "-";
  if (sizes.size() <= 4) return fmt::format("{}", fmt::join(sizes, ","));
  return fmt::format("{} sizes, {}..{}", sizes.size(), sizes.front(), sizes.back());
}

// One kernel to export: its request, and the configuration of the slice it serves.
struct Planned {
  CompileRequest request;
  const Slice* slice = nullptr;
  const ExportedConfiguration* configuration = nullptr;
};

std::vector<Planned> requests_of(const std::vector<Slice>& slices) {
  std::vector<Planned> planned;
  for (const Slice& s : slices) {
    // The configurations come by size: the space is enumerated once per size.
    int valid_size = 0;
    std::vector<Variant> valid;
    for (const ExportedConfiguration& c : s.configurations) {
      if (c.size != valid_size) valid = valid_variants(*s.family, valid_size = c.size);
      const auto v = std::find_if(valid.begin(), valid.end(), [&](const Variant& x) { return x.name == c.variant; });
      planned.push_back({s.family->variant_request(*v, c.size, s.arch), &s, &c});
    }
  }
  return planned;
}

// The index's kernels and their cubins (a batch's kernels share one, hashed once).
void collect(const std::vector<Planned>& planned, const std::vector<CompileOutcome>& outcomes,
             std::vector<ExportedKernel>& kernels, std::map<std::string, std::string>& cubins) {
  std::map<const Binary*, std::string> hashes;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const CompileOutcome& outcome = outcomes[i];
    if (!outcome.ok) {
      fmt::print(stderr, "{} ({}) failed to compile:\n{}\n", outcome.request.name, outcome.request.target, outcome.log);
      throw error(fmt::format("{} ({}) failed to compile (its log is above): nothing exported", outcome.request.name,
                              outcome.request.target));
    }
    const Binary& binary = *outcome.kernel.binary;
    auto [hashed, first] = hashes.try_emplace(&binary);
    if (first) {
      hashed->second = content_hash({binary.bytes});
      cubins.emplace(exported_cubin_name(hashed->second), binary.bytes);
    }
    const Planned& p = planned[i];
    kernels.push_back({nvrtc_build_key(outcome.request), p.slice->family->name(), p.slice->arch,
                       p.configuration->variant, p.configuration->size, outcome.kernel.entry,
                       exported_cubin_name(hashed->second), binary.bytes.size(), hashed->second});
  }
}

int run_export(const Options& o) {
  const auto start = std::chrono::steady_clock::now();
  const RuntimeTables& tables = runtime_tables();
  const std::vector<Slice> slices = plan(o, tables);
  TextTable table({"family", "arch", "sizes", "kernels"});
  for (const Slice& s : slices) {
    table.add_row({s.family->name(), s.arch, size_range(s.sizes), std::to_string(s.configurations.size())});
  }
  fmt::print("{}", table.render());
  const std::vector<Planned> planned = requests_of(slices);
  if (o.dry_run) {
    fmt::print("export (dry run): {} kernels from {}; nothing compiled or written\n", planned.size(), tables.source);
    return 0;
  }

  check_output_folder("--out", o.out);
  const CompileCache cache = writable_cache(o.cache_dir);
  std::vector<CompileRequest> requests;
  for (const Planned& p : planned) requests.push_back(p.request);
  Progress progress("export", requests.size());
  CompileOptions options;
  options.jobs = o.jobs;
  options.on_progress = [&](const CompileProgress& p) { progress.advance(p.done, p.last->request.name); };
  const std::vector<CompileOutcome> outcomes = compile_all(requests, cache, options);
  progress.finish();

  std::vector<ExportedKernel> kernels;
  std::map<std::string, std::string> cubins;
  collect(planned, outcomes, kernels, cubins);
  write_kernel_export(o.out, generating_command(o), "NVRTC " + nvrtc_version(), kernels, cubins);
  std::size_t total_bytes = 0;
  for (const auto& [name, bytes] : cubins) total_bytes += bytes.size();
  const auto hits =
      std::count_if(outcomes.begin(), outcomes.end(), [](const CompileOutcome& c) { return c.cache_hit; });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("export: {} kernels in {} cubins, {} bytes, to {}; wall {:.1f} s, cache hits {}/{}\n", kernels.size(),
             cubins.size(), total_bytes, o.out, wall, hits, kernels.size());
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, Run& run) {
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "export",
      "Compile the kernels the runtime serves from the tables (each family, each GPU architecture the tables name) "
      "and write them as cubins with an index, for the runtime to load instead of compiling: the tuned sizes and "
      "the default shapes' sizes, with every candidate the runtime may launch there (docs/runtime.md). Needs no GPU.");
  command->add_option("--out", options->out, "folder to write the export to (its earlier cubins are replaced)")
      ->check(nonempty_path());
  command->add_option("--family", options->families, "only these families (default: every family the tables hold)");
  command
      ->add_option("--arch", options->arch,
                   "GPU architectures, e.g. --arch sm_90 --arch sm_100 (default: those of the GPUs the tables name)")
      ->delimiter(',');
  command->add_flag("--every-size", options->every_size,
                    "every size the tables serve, not only the tuned and default shapes' sizes (thousands of kernels)");
  command->add_flag("--dry-run", options->dry_run,
                    "print what would be exported, per family and arch; compile nothing");
  add_cache_and_jobs_options(*command, options->cache_dir, options->jobs);
  command->callback([&run, options] {
    if (!options->dry_run && options->out.empty()) throw CLI::RequiredError("--out");
    run = [options] { return run_export(*options); };
  });
}

}  // namespace exactune::cli
