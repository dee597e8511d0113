// exactune list: the variant space at one or more hidden sizes, valid variants
// and excluded combinations with the reason for each.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "common_options.hpp"
#include "error.hpp"
#include "layer_norm_modulate_family.hpp"
#include "space.hpp"
#include "text_table.hpp"

namespace exactune::cli {

void add_list_command(CLI::App& app, Run& run) {
  struct Options {
    std::vector<int> hidden;
    ShapeOptions shapes;
    bool valid_only = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* command = app.add_subcommand(
      "list", "Print the variant space: the axes, every valid variant, and each excluded combination with the "
              "reason it cannot run");
  command->add_option("--hidden", options->hidden, "hidden sizes to list (default: those of the shape set)")
      ->check(CLI::PositiveNumber);
  options->shapes.add_to(*command);
  command->add_flag("--valid-only", options->valid_only, "list only the valid variants");
  command->callback([&run, options] {
    run = [options] {
      const KernelFamily& family = layer_norm_modulate_family();
      std::vector<int> hidden = options->hidden.empty() ? options->shapes.load().hidden_sizes() : options->hidden;
      fmt::print("family {}: {}\naxes:\n", family.name(), family.description());
      for (const Axis& axis : family.axes()) {
        fmt::print("  {:<13} {{{}}}  {}\n", axis.name, fmt::join(axis.values, ", "), axis.description);
      }
      for (int d : hidden) {
        if (d % 4 != 0 || d > 8192) {
          throw input_error(fmt::format("--hidden {}: the fused kernel serves hidden sizes that are multiples of 4, "
                                        "up to 8192",
                                        d));
        }
        const std::vector<Candidate> space = enumerate_space(family, d);
        TextTable table({"variant", "status"});
        std::size_t valid = 0;
        for (const Candidate& c : space) {
          if (c.valid()) ++valid;
          if (c.valid() || !options->valid_only) {
            table.add_row({c.variant.name, c.valid() ? "valid" : "excluded: " + c.excluded_because});
          }
        }
        fmt::print("\nhidden {}: {} valid, {} excluded of {} combinations\n{}", d, valid, space.size() - valid,
                   space.size(), table.render());
      }
      return 0;
    };
  });
}

}  // namespace exactune::cli
