#include "util/yaml_node_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace exactune {

int line_of(const YAML::Node& node) { return std::max(node.Mark().line, 0) + 1; }

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Scalar: {
      // Enough to recognise the value by; a hostile one may be megabytes long.
      constexpr std::size_t kShown = 60;
      const std::string& text = node.Scalar();
      if (text.size() <= kShown) return fmt::format("'{}'", text);
      std::size_t cut = kShown;
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;  // not inside a character
      return fmt::format("'{}...'", text.substr(0, cut));
    }
    default: return "nothing";
  }
}

}  // namespace exactune
