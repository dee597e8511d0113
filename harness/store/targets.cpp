#include "store/targets.hpp"

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <set>

#include <exactune/shapes.hpp>

#include "shapes/shape_parameters_reader.hpp"
#include "util/strict_yaml.hpp"
#include "util/text_file.hpp"

namespace exactune {

using strict_yaml::Fields;
using strict_yaml::Source;
using strict_yaml::Value;

namespace {

ShapeTarget read_target(const Value& item) {
  const Fields f = item.map("a target", {"shape", "best_over_copy", "reason_if_missed"});
  ShapeTarget t;
  const Value shape = f["shape"];
  if (shape.text().empty()) shape.source().fail(shape.line(), "a target needs a shape name");
  t.shape = read_shape_name(shape);
  const Value ratio = f["best_over_copy"];
  t.best_over_copy = ratio.real();
  if (!std::isfinite(t.best_over_copy) || t.best_over_copy < 1.0) {
    ratio.source().fail(ratio.line(), "best_over_copy {:g} is no target: the copy itself is 1.0", t.best_over_copy);
  }
  if (const auto reason = f.optional("reason_if_missed")) t.reason_if_missed = reason->text();
  return t;
}

}  // namespace

Targets parse_targets_yaml(std::string_view text, const std::string& source_name) {
  const Source source(source_name);
  const YAML::Node root = strict_yaml::load_document(text, source, "a map with a 'targets' list");
  const Fields top(source, root, line_of(root), "the top level", {"targets"});
  Targets targets;
  std::set<std::string> seen;
  const Value list = top["targets"];
  const std::vector<Value> items = list.list();
  // One target per shape of a sweep.
  if (items.size() > kMaxShapes) {
    source.fail(list.line(), "targets holds {} targets, more than the {} shapes a sweep may hold", items.size(),
                kMaxShapes);
  }
  for (const Value& item : items) {
    ShapeTarget t = read_target(item);
    if (!seen.insert(t.shape).second) source.fail(item.line(), "shape '{}' has a target already", t.shape);
    targets.shapes.push_back(std::move(t));
  }
  return targets;
}

Targets load_targets_file(const std::string& path) {
  return parse_targets_yaml(read_text_file(path, "targets file"), path);
}

Targets targets_beside(const std::filesystem::path& folder) {
  const std::filesystem::path file = folder / "targets.yaml";
  return std::filesystem::exists(file) ? load_targets_file(file.string()) : Targets{};
}

}  // namespace exactune
