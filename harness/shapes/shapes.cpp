// The shape-file reader: generic over families. The family declares its
// parameters (KernelFamily::shape_parameters) and judges their values; this
// reader checks the file's structure, names, types and presence, and points
// every error at its file and line.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <exactune/error.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>
#include <map>

#include "util/embedded_files.hpp"
#include "util/strict_yaml.hpp"
#include "util/text_file.hpp"

namespace exactune {
namespace {

using strict_yaml::Fields;
using strict_yaml::Source;
using strict_yaml::Value;

class ShapeFileReader {
 public:
  ShapeFileReader(const KernelFamily& family, const std::string& source) : family_(family), source_(source), name_(source) {
    known_ = {"name", "model"};
    for (const ParameterSpec& p : family.shape_parameters()) known_.push_back(p.name);
  }

  ShapeSet read(std::string_view yaml_text) {
    const YAML::Node root = strict_yaml::load_document(yaml_text, source_, "a map with a 'shapes' list");
    const Fields top = Value(source_, "the file", root, line_of(root)).map("the top level", {"shapes"});
    const Value list = top["shapes"];
    const std::vector<Value> items = list.list();
    if (items.empty()) source_.fail(list.line(), "'shapes' is empty; a set needs at least one shape");
    ShapeSet set{family_.name(), name_, {}};
    for (std::size_t i = 0; i < items.size(); ++i) set.shapes.push_back(read_shape(items[i], i));
    return set;
  }

 private:
  Shape read_shape(const Value& item, std::size_t index) {
    const Fields fields = item.map(fmt::format("shape #{}", index + 1), known_);
    std::vector<std::string> missing;
    for (const std::string& key : {std::string("name"), std::string("model")}) {
      if (!fields.has(key)) missing.push_back(key);
    }
    for (const ParameterSpec& p : family_.shape_parameters()) {
      if (!fields.has(p.name) && !p.default_value) missing.push_back(p.name);
    }
    if (!missing.empty()) {
      source_.fail(item.line(), "shape #{} is missing required key{} '{}'", index + 1, missing.size() > 1 ? "s" : "",
                   fmt::join(missing, "', '"));
    }

    Shape shape;
    shape.name = name(fields["name"]);
    shape.model = fields["model"].text();
    if (shape.model.empty()) source_.fail(fields["model"].line(), "model must not be empty");
    for (const ParameterSpec& spec : family_.shape_parameters()) {
      ShapeParameter parameter{spec.name, spec.default_value.value_or(0), spec.integer};
      if (const std::optional<Value> value = fields.optional(spec.name)) {
        // Integers are read as int: out of its range is an error here, never a wrapped value later.
        parameter.value = spec.integer ? static_cast<double>(value->integer<int>()) : value->real();
        if (!std::isfinite(parameter.value)) source_.fail(value->line(), "{} must be a finite number", spec.name);
        const std::string problem = family_.parameter_problem(spec.name, parameter.value);
        if (!problem.empty()) source_.fail(value->line(), "{}", problem);
      }
      shape.parameters.push_back(parameter);
    }
    try {
      family_.complete(shape);
    } catch (const input_error& e) {
      source_.fail(item.line(), "shape '{}': {}", shape.name, e.what());
    }
    return shape;
  }

  std::string name(const Value& value) {
    const std::string text = value.text();
    if (text.empty()) source_.fail(value.line(), "name must not be empty");
    const bool valid = std::all_of(text.begin(), text.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    });
    if (!valid) {
      source_.fail(value.line(), "name '{}' must match [a-z0-9._-]+ (lowercase letters, digits, '.', '_', '-')", text);
    }
    const auto [first, inserted] = name_lines_.try_emplace(text, value.line());
    if (!inserted) source_.fail(value.line(), "name '{}' is already used on line {}", text, first->second);
    return text;
  }

  const KernelFamily& family_;
  Source source_;
  std::string name_;
  std::vector<std::string> known_;
  std::map<std::string, int> name_lines_;  // name -> line it was first given on
};

}  // namespace

ShapeSet parse_shapes(const KernelFamily& family, std::string_view yaml_text, const std::string& source) {
  return ShapeFileReader(family, source).read(yaml_text);
}

ShapeSet load_shapes_file(const KernelFamily& family, const std::string& path) {
  return parse_shapes(family, read_text_file(path, "shape file"), path);
}

ShapeSet default_shapes(const KernelFamily& family) {
  return parse_shapes(family, embedded_file(family.default_shapes_path()),
                      fmt::format("<embedded default of {}>", family.name()));
}

}  // namespace exactune
