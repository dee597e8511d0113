// exactune emit-header: regenerates the C++ header and the JSON table from a
// committed heuristics.yaml and the record of where the defaults were verified
// (exactune verify-defaults), so that editing or reviewing the yaml is all it
// takes to change what serving code launches.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include <exactune/error.hpp>

#include "cli/blaming_the_input.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/report_writer.hpp"
#include "store/family_tables.hpp"
#include "store/heuristics_file.hpp"

namespace exactune::cli {

void add_emit_header_command(CLI::App& app, Run& run) {
  struct Options {
    std::string from;
    std::string out_dir;
    std::string records;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "emit-header", fmt::format("Regenerate {} (C++17, self-contained) and {} (for Python) from a heuristics.yaml; "
                                 "the same yaml always gives the same bytes",
                                 kHeuristicsHeaderFile, kHeuristicsJsonFile));
  command->add_option("--from", options->from, "the heuristics.yaml, e.g. reports/nvidia-h200/<family>/heuristics.yaml")
      ->required()
      ->check(nonempty_path())
      ->check(CLI::ExistingFile);
  command->add_option("--out", options->out_dir, "folder to write to, created if need be (default: the yaml's own)")
      ->check(nonempty_path());
  command
      ->add_option("--records", options->records,
                   "folder of <family>/verified_defaults.yaml, where the defaults serve only their verified sizes "
                   "(default: <reports>/tables for a yaml at <reports>/<gpu-slug>/<family>/; none there: the "
                   "defaults serve no size)")
      ->check(nonempty_path());
  command->callback([&run, options] {
    run = [options] {
      const std::filesystem::path from = options->from;
      const std::filesystem::path dir =
          options->out_dir.empty() ? from.parent_path() : std::filesystem::path(options->out_dir);
      if (!options->out_dir.empty()) check_output_folder("--out", options->out_dir);
      std::optional<std::filesystem::path> records;
      if (!options->records.empty()) records = options->records;
      const auto written_files = blaming_the_input([&] {
        const Heuristics heuristics = load_heuristics_file(from.string());
        return write_generated_tables(heuristics,
                                      defaults_record_of(heuristics.family, records.value_or(tables_dir_of(from))),
                                      device_record_beside(from, heuristics.family, heuristics.device.name), dir);
      });
      for (const std::filesystem::path& written : written_files) {
        fmt::print("wrote {}\n", written.string());
      }
      return 0;
    };
  });
}

}  // namespace exactune::cli
