// exactune tables: one header and one JSON for every GPU swept, made from every
// reports/<gpu-slug>/<family>/heuristics.yaml and each family's record of
// verified defaults (reports/tables/<family>/verified_defaults.yaml), so that
// serving code ships one file that picks the configuration by the GPU it runs
// on, at the sizes it was proven at; and per family, size and GPU a
// <size>=<n>,device_name=<NAME>.json that serving frameworks load as their
// tuned configs, with device_name=<NAME>.exactune.json beside them; and
// table_vs_rule.md, what the tables buy against the frameworks' hand rules and
// the other GPUs' choices, from the sweep.yaml beside each heuristics.yaml.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "cli/blaming_the_input.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "report/heuristics_emitter.hpp"
#include "report/report_writer.hpp"
#include "report/table_buys.hpp"
#include "store/family_tables.hpp"

namespace exactune::cli {

void add_tables_command(CLI::App& app, Run& run) {
  struct Options {
    std::string reports = "reports";
    std::string out;
    std::string records;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "tables",
      fmt::format("Write {} and {} (every family, every GPU under the reports folder) and "
                  "<family>/<size>=<n>,device_name=<NAME>.json per size and GPU (vLLM's and SGLang's config form) with "
                  "<family>/device_name=<NAME>.exactune.json beside them, from every <reports>/<gpu-slug>/<family>/"
                  "heuristics.yaml, and {} (what the tables buy against the frameworks' hand rules and the other "
                  "GPUs' choices) from the sweep.yaml beside each; the same files always give the same bytes",
                  kTablesHeaderFile, kTablesJsonFile, kTableVsRuleFile));
  command->add_option("--reports", options->reports, "the folder exactune sweep writes to")
      ->capture_default_str()
      ->check(nonempty_path());
  command->add_option("--out", options->out, "folder to write to, created if need be (default: <reports>/tables)")
      ->check(nonempty_path());
  command
      ->add_option("--records", options->records,
                   "folder of <family>/verified_defaults.yaml (exactune verify-defaults), where the defaults serve "
                   "only their verified sizes (default: <reports>/tables; a family without one: its defaults "
                   "serve no size)")
      ->check(nonempty_path());
  command->callback([&run, options] {
    run = [options] {
      if (!options->out.empty()) check_output_folder("--out", options->out);
      const std::filesystem::path reports = options->reports;
      const std::filesystem::path out = options->out.empty() ? reports / "tables" : std::filesystem::path(options->out);
      const std::filesystem::path records =
          options->records.empty() ? reports / "tables" : std::filesystem::path(options->records);
      std::vector<SweptFamily> sweeps;
      const std::vector<FamilyTables> families = blaming_the_input([&] {
        const std::vector<HeuristicsFile> files = load_swept_heuristics(reports);
        sweeps = load_sweeps_beside(files);
        std::vector<FamilyTables> read = tables_by_family(files);
        for (FamilyTables& t : read) {
          read_defaults_record(t, records);
          if (!t.defaults_record) {
            fmt::print(stderr,
                       "exactune: no {}: the defaults of {} serve no size (exactune verify-defaults "
                       "--family {} writes it)\n",
                       (records / defaults_record_path(t.family)).string(), t.family, t.family);
          }
        }
        return read;
      });
      for (const std::filesystem::path& written :
           blaming_the_input([&] { return write_tables(families, sweeps, out); })) {
        fmt::print("wrote {}\n", written.string());
      }
      return 0;
    };
  });
}

}  // namespace exactune::cli
