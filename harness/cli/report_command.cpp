// exactune report: every report of a sweep, regenerated from its sweep.yaml
// alone (heuristics.yaml, header, JSON, summary.md, heatmaps). Needs no GPU:
// the tables are a function of the measured results and the chooser's policy,
// so changing the chooser or the summary's layout never needs a new sweep.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include <exactune/error.hpp>

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

void add_report_command(CLI::App& app, Run& run) {
  struct Options {
    std::string from;
    std::string out;
    std::string policy;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "report",
      "Regenerate the reports of a sweep from its sweep.yaml: heuristics.yaml, exactune_heuristics.hpp, "
      "heuristics.json, summary.md and the heatmaps; summary.md sets the targets of a targets.yaml beside the "
      "sweep.yaml against it, and the framework's own eager times of the GPU's runtime.json (one folder "
      "up) beside the reference chain. Needs no GPU.");
  command->add_option("--from", options->from, "a sweep.yaml written by exactune sweep")
      ->required()
      ->check(nonempty_path());
  command->add_option("--out", options->out, "folder to write to (default: the sweep.yaml's own)")
      ->check(nonempty_path());
  command->add_option("--policy", options->policy,
                      "what the chooser ranks by, written into heuristics.yaml: rotated (hot, inputs cycled past "
                      "twice the L2), cold, both (the sum of the two, each over its copy), or l2_resident (only for "
                      "sweeps timed before the rotated regime) (default: the policy of the heuristics.yaml beside "
                      "the sweep.yaml, else rotated)");
  command->callback([&run, options] {
    run = [options] {
      if (!options->out.empty()) check_output_folder("--out", options->out);
      const SweepResults results = blaming_the_input([&] { return read_sweep_file(options->from); });
      std::filesystem::path sweep_folder = std::filesystem::path(options->from).parent_path();
      if (sweep_folder.empty()) sweep_folder = ".";
      const std::filesystem::path out = options->out.empty() ? sweep_folder : std::filesystem::path(options->out);
      const ChooserPolicy policy =
          blaming_the_input([&] { return policy_named_or_beside(options->policy, sweep_folder); });
      // The records of verified defaults beside the sweep's reports, wherever --out writes.
      const auto written = blaming_the_input(
          [&] { return write_reports(results, out, report_inputs_beside(sweep_folder, results.family, policy)); });
      for (const auto& file : written) fmt::print("wrote {}\n", file.string());
      return 0;
    };
  });
}

}  // namespace exactune::cli
