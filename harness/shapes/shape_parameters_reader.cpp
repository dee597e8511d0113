#include "shapes/shape_parameters_reader.hpp"

#include <cmath>
#include <optional>

#include <exactune/error.hpp>

namespace exactune {

std::string read_shape_name(const strict_yaml::Value& value) {
  std::string name = value.text();
  if (const std::string problem = shape_name_problem(name); !problem.empty()) {
    value.source().fail(value.line(), "{}", problem);
  }
  return name;
}

void read_shape_parameters(const KernelFamily& family, const strict_yaml::Fields& fields,
                           const strict_yaml::Value& item, Shape& shape) {
  for (const ParameterSpec& spec : family.shape_parameters()) {
    ShapeParameter parameter{spec.name, spec.default_value.value_or(0), spec.integer};
    const std::optional<strict_yaml::Value> given = fields.optional(spec.name);
    if (given || !spec.default_value) {
      const strict_yaml::Value value = fields[spec.name];  // missing without a default: fails, naming the key
      // Integers are read as int: out of its range is an error here, never a wrapped value later.
      parameter.value = spec.integer ? static_cast<double>(value.integer<int>()) : value.finite_real();
      const std::string problem = family.parameter_problem(spec.name, parameter.value);
      if (!problem.empty()) value.source().fail(value.line(), "{}", problem);
    }
    shape.parameters.push_back(std::move(parameter));
  }
  try {
    family.complete(shape);
  } catch (const input_error& e) {
    item.source().fail(item.line(), "shape '{}': {}", shape.name, e.what());
  }
}

}  // namespace exactune
