// exactune families: the kernel families this binary knows, the default first,
// one per line with its size parameter and description (scripts read the names
// with `cut -f1`).
#include <fmt/format.h>

#include <exactune/family_registry.hpp>

#include "cli/commands.hpp"

namespace exactune::cli {

void add_families_command(CLI::App& app, Run& run) {
  CLI::App* command = app.add_subcommand(
      "families", "List the kernel families: name, size parameter and description, tab-separated, the default first");
  command->callback([&run] {
    run = [] {
      for (const KernelFamily* family : FamilyRegistry::all()) {
        fmt::print("{}\t{}\t{}\n", family->name(), family->size_parameter(), family->description());
      }
      return 0;
    };
  });
}

}  // namespace exactune::cli
