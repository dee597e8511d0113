// exactune merge: the shards of a sweep (`exactune sweep --shard i/n` on the
// GPUs of a fleet, one CI job each) made into the sweep.yaml and reports the
// whole sweep would have written. Needs no GPU.
#include "cli/merge_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "cli/blaming_the_input.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "report/report_writer.hpp"
#include "store/chooser_policy.hpp"
#include "store/framework_times.hpp"
#include "store/report_inputs.hpp"
#include "store/sweep_file.hpp"
#include "store/targets.hpp"

namespace exactune::cli {

std::vector<std::filesystem::path> write_merged_sweep(const std::vector<std::string>& shard_files,
                                                      const std::filesystem::path& out, const MergeOptions& options,
                                                      ChooserPolicy policy) {
  const std::vector<ShardFile> shards = blaming_the_input([&] { return read_shard_files(shard_files); });
  const SweepResults merged = merge_shards(shards, options);
  std::size_t pairs = 0;
  for (const ShapeResult& s : merged.shapes) pairs += s.variants.size();
  fmt::print("merged {} shard(s) of {} on {}: {} shapes, {} (shape, variant) pairs\n", merged.merged_shards,
             merged.family, merged.device.name, merged.shapes.size(), pairs);
  std::vector<std::filesystem::path> written;
  if (merged.narrowed()) {
    write_sweep_file(merged, out / "sweep.yaml");
    written.push_back(out / "sweep.yaml");
    fmt::print("{}: wrote sweep.yaml only: heuristics and reports need the whole space\n",
               merged.missing_shards.empty()
                   ? fmt::format("gate mode (only {})", merged.only)
                   : fmt::format("shard(s) {} missing", shard_numbers_text(merged.missing_shards)));
  } else {
    written =
        blaming_the_input([&] { return write_reports(merged, out, report_inputs_beside(out, merged.family, policy)); });
  }
  fmt::print("wrote {} file(s) to {}\n", written.size(), out.string());
  return written;
}

void add_merge_command(CLI::App& app, Run& run) {
  struct Options {
    std::vector<std::string> shards;
    std::string out;
    bool allow_partial = false;
    std::string policy;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "merge",
      "Merge the sweep.yaml files of the shards of one sweep (exactune sweep --shard i/n, e.g. one CI job "
      "per GPU) into one sweep.yaml and write its reports as a whole sweep would. Refuses shards of other "
      "GPU models, toolchains, families, reference recipes, seeds, timer settings or strategies, a shard "
      "given twice, shards of different n, and a set with shards missing (unless --allow-partial). Needs "
      "no GPU.");
  command->add_option("sweeps", options->shards, "the sweep.yaml of each shard")->required()->check(nonempty_path());
  command->add_option("--out", options->out, "folder to write the merged sweep.yaml and reports to")
      ->required()
      ->check(nonempty_path());
  command->add_flag("--allow-partial", options->allow_partial,
                    "merge even when shards are missing: the sweep.yaml says which, and no reports are written");
  command->add_option("--policy", options->policy,
                      "what the chooser ranks by: rotated, cold or both (default: the policy of the heuristics.yaml "
                      "in --out, else rotated)");
  command->callback([&run, options] {
    run = [options] {
      check_output_folder("--out", options->out);
      const ChooserPolicy policy =
          blaming_the_input([&] { return policy_named_or_beside(options->policy, options->out); });
      write_merged_sweep(options->shards, options->out, MergeOptions{options->allow_partial}, policy);
      return 0;
    };
  });
}

}  // namespace exactune::cli
