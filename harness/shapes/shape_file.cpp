#include "shapes/shape_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include <exactune/error.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "shapes/shape_parameters_reader.hpp"
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
  ShapeFileReader(const KernelFamily& family, const std::string& source)
      : family_(family), source_(source), name_(source) {
    known_ = {"name", "model"};
    for (const ParameterSpec& p : family.shape_parameters()) known_.push_back(p.name);
  }

  ShapeSet read(std::string_view yaml_text) {
    const YAML::Node root = strict_yaml::load_document(yaml_text, source_, "a map with a 'shapes' list");
    const Fields top = Value(source_, "the file", root, line_of(root)).map("the top level", {"shapes"});
    const Value list = top["shapes"];
    const std::vector<Value> items = list.list();
    if (items.empty()) source_.fail(list.line(), "'shapes' is empty; a set needs at least one shape");
    if (items.size() > kMaxShapes) {
      source_.fail(list.line(), "'shapes' holds {} shapes, more than the {} a set may hold", items.size(), kMaxShapes);
    }
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
    read_shape_parameters(family_, fields, item, shape);
    return shape;
  }

  std::string name(const Value& value) {
    const std::string text = read_shape_name(value);
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
