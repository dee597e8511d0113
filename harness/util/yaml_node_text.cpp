#include "util/yaml_node_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace exactune {

int line_of(const YAML::Node& node) { return std::max(node.Mark().line, 0) + 1; }

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Scalar: return fmt::format("'{}'", node.Scalar());
    default: return "nothing";
  }
}

}  // namespace exactune
