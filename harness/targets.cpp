#include "targets.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <set>

#include "error.hpp"
#include "text_file.hpp"
#include "yaml_node_text.hpp"

namespace exactune {
namespace {

template <typename... Args>
[[noreturn]] void fail(const std::string& source, int line, fmt::format_string<Args...> what, Args&&... args) {
  throw input_error(fmt::format("{}:{}: {}", source, line, fmt::format(what, std::forward<Args>(args)...)));
}

ShapeTarget read_target(const YAML::Node& node, const std::string& source) {
  if (!node.IsMap()) fail(source, line_of(node), "a target must be a map, not {}", describe(node));
  ShapeTarget t;
  bool has_shape = false, has_ratio = false;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.Scalar();
    const YAML::Node& value = it->second;
    const int line = line_of(it->first);
    if (!value.IsScalar()) fail(source, line, "{} must be a single value, not {}", key, describe(value));
    if (key == "shape") {
      t.shape = value.Scalar();
      has_shape = !t.shape.empty();
    } else if (key == "best_over_copy") {
      try {
        t.best_over_copy = value.as<double>();
      } catch (const YAML::Exception&) {
        fail(source, line, "best_over_copy must be a number, not {}", describe(value));
      }
      if (!std::isfinite(t.best_over_copy) || t.best_over_copy < 1.0) {
        fail(source, line, "best_over_copy {} is no target: the copy itself is 1.0", value.Scalar());
      }
      has_ratio = true;
    } else if (key == "reason_if_missed") {
      t.reason_if_missed = value.Scalar();
    } else {
      fail(source, line, "unknown key '{}' (a target has shape, best_over_copy and reason_if_missed)", key);
    }
  }
  if (!has_shape) fail(source, line_of(node), "a target needs a shape name");
  if (!has_ratio) fail(source, line_of(node), "target '{}' needs best_over_copy", t.shape);
  return t;
}

}  // namespace

Targets parse_targets_yaml(std::string_view text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    fail(source, std::max(e.mark.line, 0) + 1, "YAML syntax error: {}", e.msg);
  }
  if (!root.IsMap() || !root["targets"] || root.size() != 1) {
    fail(source, line_of(root), "expected one key, targets, holding a list of shape targets");
  }
  const YAML::Node list = root["targets"];
  if (!list.IsSequence()) fail(source, line_of(list), "targets must be a list, not {}", describe(list));
  Targets targets;
  std::set<std::string> seen;
  for (const YAML::Node& node : list) {
    ShapeTarget t = read_target(node, source);
    if (!seen.insert(t.shape).second) fail(source, line_of(node), "shape '{}' has a target already", t.shape);
    targets.shapes.push_back(std::move(t));
  }
  return targets;
}

Targets load_targets_file(const std::string& path) { return parse_targets_yaml(read_text_file(path, "targets file"), path); }

Targets targets_beside(const std::filesystem::path& folder) {
  const std::filesystem::path file = folder / "targets.yaml";
  return std::filesystem::exists(file) ? load_targets_file(file.string()) : Targets{};
}

}  // namespace exactune
