// exactune list: the variant space at one or more sizes, valid variants
// and excluded combinations with the reason for each.
#include <fmt/format.h>

#include <memory>

#include <exactune/error.hpp>
#include <exactune/space.hpp>

#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "util/text_table.hpp"

namespace exactune::cli {

void add_list_command(CLI::App& app, Run& run) {
  struct Options {
    std::vector<int> sizes;
    ShapeOptions shapes;
    bool valid_only = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "list",
      "Print the variant space: the axes, every valid variant, and each excluded combination with the "
      "reason it cannot run");
  command->add_option("--size", options->sizes,
                      "sizes to list, values of the family's size parameter (default: those of the shape set)");
  options->shapes.add_to(*command);
  command->add_flag("--valid-only", options->valid_only, "list only the valid variants");
  command->callback([&run, options] {
    run = [options] {
      const KernelFamily& family = options->shapes.family.family();
      const std::vector<int> sizes = options->sizes.empty() ? options->shapes.load().sizes() : options->sizes;
      // Each size is judged by the family's own rule, before anything is printed.
      for (int d : sizes) {
        const std::string problem = family.parameter_problem(family.size_parameter(), d);
        if (!problem.empty()) throw input_error(fmt::format("--size {}: {}", d, problem));
      }
      fmt::print("family {}: {}\naxes:\n", family.name(), family.description());
      for (const Axis& axis : family.axes()) {
        fmt::print("  {:<13} {{{}}}  {}\n", axis.name, fmt::join(axis.values, ", "), axis.description);
      }
      for (int d : sizes) {
        const std::vector<Candidate> space = enumerate_space(family, d);
        TextTable table({"variant", "status"});
        std::size_t valid = 0;
        for (const Candidate& c : space) {
          if (c.valid()) ++valid;
          if (c.valid() || !options->valid_only) {
            table.add_row({c.variant.name, c.valid() ? "valid" : "excluded: " + c.excluded_because});
          }
        }
        fmt::print("\n{} {}: {} valid, {} excluded of {} combinations\n{}", family.size_parameter(), d, valid,
                   space.size() - valid, space.size(), table.render());
      }
      return 0;
    };
  });
}

}  // namespace exactune::cli
