// exactune tables: one header and one JSON for every GPU swept, made from every
// reports/<gpu-slug>/<family>/heuristics.yaml, so that serving code ships one
// file that picks the configuration by the GPU it runs on; and per family and
// GPU a device_name=<NAME>.json, as serving frameworks name their tuned configs.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "cli/blaming_the_input.hpp"
#include "cli/commands.hpp"
#include "report/family_tables.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/report_writer.hpp"

namespace exactune::cli {

void add_tables_command(CLI::App& app, Run& run) {
  struct Options {
    std::string reports = "reports";
    std::string out;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "tables", fmt::format("Write {} and {} (every family, every GPU under the reports folder) and "
                            "<family>/device_name=<NAME>.json per GPU, from every <reports>/<gpu-slug>/<family>/"
                            "heuristics.yaml; the same files always give the same bytes",
                            kTablesHeaderFile, kTablesJsonFile));
  command->add_option("--reports", options->reports, "the folder exactune sweep writes to")->capture_default_str();
  command->add_option("--out", options->out, "folder to write to, created if need be (default: <reports>/tables)");
  command->callback([&run, options] {
    run = [options] {
      const std::filesystem::path reports = options->reports;
      const std::filesystem::path out = options->out.empty() ? reports / "tables" : std::filesystem::path(options->out);
      const std::vector<FamilyTables> families =
          blaming_the_input([&] { return tables_by_family(load_swept_heuristics(reports)); });
      for (const std::filesystem::path& written : write_tables(families, out)) {
        fmt::print("wrote {}\n", written.string());
      }
      return 0;
    };
  });
}

}  // namespace exactune::cli
