#include "gate/gate_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include <exactune/error.hpp>

#include "store/heuristics.hpp"
#include "util/text_file.hpp"

namespace exactune {
namespace {

// The line of heuristics.yaml that names `shape` as a choice's evidence (1 when none does: a hand-made table).
int line_naming(const std::string& text, const std::string& shape) {
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, std::string::npos, "shape: " + shape) == 0) return number;
  }
  return 1;
}

}  // namespace

Selection gate_selection(const Heuristics& heuristics, const std::string& heuristics_file, const KernelFamily& family,
                         const std::vector<Shape>& shapes, const std::string& glob) {
  if (heuristics.family != family.name()) {
    throw input_error(fmt::format("{}:1: the table is of family '{}', the sweep of '{}'", heuristics_file,
                                  heuristics.family, family.name()));
  }
  const std::string text = read_text_file(heuristics_file, "heuristics file");
  const std::vector<ShapeVariant> space = space_pairs(family, shapes, glob);
  std::set<ShapeVariant> pairs;
  for (const Choice& choice : heuristics.device.choices) {
    const auto shape =
        std::find_if(shapes.begin(), shapes.end(), [&](const Shape& s) { return s.name == choice.shape; });
    if (shape == shapes.end()) {
      throw input_error(fmt::format(
          "{}:{}: the choice for {} {} rests on shape '{}', which the shapes swept do not "
          "define: sweep the shapes the table was chosen from (--shapes)",
          heuristics_file, line_naming(text, choice.shape), family.size_parameter(), choice.size, choice.shape));
    }
    for (const std::string& variant : {choice.chosen.variant, choice.runner_up}) {
      if (variant.empty()) continue;  // no runner-up
      const ShapeVariant pair{choice.shape, variant};
      if (!std::binary_search(space.begin(), space.end(), pair)) {
        throw input_error(
            fmt::format("{}:{}: variant {} of shape '{}' is no valid variant of family {} at {} {} "
                        "that --variants {} matches",
                        heuristics_file, line_naming(text, choice.shape), variant, choice.shape, family.name(),
                        family.size_parameter(), shape->size, glob));
      }
      pairs.insert(pair);
    }
  }
  return Selection(std::move(pairs));
}

std::string gate_command_after(const std::string& heuristics_file, const std::string& candidate) {
  const std::filesystem::path baseline = std::filesystem::path(heuristics_file).parent_path() / "sweep.yaml";
  return fmt::format("exactune gate --baseline {} --candidate {} --heuristics {}", baseline.string(), candidate,
                     heuristics_file);
}

}  // namespace exactune
