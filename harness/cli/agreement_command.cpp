// exactune agreement: how often a fast search strategy chooses as exhaustive
// search does, from two report folders (report/strategy_agreement.hpp); the
// Markdown goes to stdout, the summary line last. Exit 0 when compared,
// whatever the agreement; 2 on a folder or file it cannot read.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "report/strategy_agreement.hpp"

namespace exactune::cli {

void add_agreement_command(CLI::App& app, Run& run) {
  struct Options {
    std::string exhaustive;
    std::string fast;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "agreement",
      "Table how a fast search strategy's choices compare with exhaustive search's on the same shapes and GPU: "
      "equal, the same by the chooser's comparison (in exhaustive's own sweep), worse, or ambiguous");
  command->add_option("exhaustive", options->exhaustive, "the reports of a sweep with --strategy exhaustive")
      ->required()
      ->check(nonempty_path());
  command->add_option("fast", options->fast, "the reports of the same sweep with a fast strategy")
      ->required()
      ->check(nonempty_path());
  command->callback([&run, options] {
    run = [options] {
      fmt::print("{}", strategy_agreement(options->exhaustive, options->fast).markdown);
      return 0;
    };
  });
}

}  // namespace exactune::cli
