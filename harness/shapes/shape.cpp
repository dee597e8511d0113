#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include <exactune/error.hpp>
#include <exactune/shapes.hpp>

namespace exactune {

std::string ShapeParameter::text() const {
  if (integer) return fmt::format("{}", static_cast<std::int64_t>(value));
  // A real always shows it is one ("1.0e-06", not "1e-06"), so that it reads back as a real.
  std::string text = fmt::format("{}", value);
  if (std::isfinite(value) && text.find('.') == std::string::npos) {
    const std::size_t exponent = text.find('e');
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  return text;
}

namespace {

const ShapeParameter& find_parameter(const Shape& shape, std::string_view name) {
  const auto it = std::find_if(shape.parameters.begin(), shape.parameters.end(),
                               [&](const ShapeParameter& p) { return p.name == name; });
  if (it == shape.parameters.end()) throw error(fmt::format("shape {} has no parameter '{}'", shape.name, name));
  return *it;
}

}  // namespace

double Shape::number(std::string_view parameter) const { return find_parameter(*this, parameter).value; }

std::int64_t Shape::integer(std::string_view parameter) const {
  return static_cast<std::int64_t>(find_parameter(*this, parameter).value);
}

std::string Shape::describe_parameters() const {
  std::vector<std::string> parts;
  for (const ShapeParameter& p : parameters) parts.push_back(fmt::format("{}={}", p.name, p.text()));
  return fmt::format("{}", fmt::join(parts, ", "));
}

RowSplit split_rows(std::int64_t rows, std::int64_t outer_limit) {
  if (rows < 1) throw error(fmt::format("cannot cut a problem to {} rows: at least 1", rows));
  for (std::int64_t outer = std::clamp<std::int64_t>(outer_limit, 1, rows); outer > 1; --outer) {
    if (rows % outer == 0) return {outer, rows / outer};
  }
  return {1, rows};
}

std::string shape_name_problem(std::string_view name) {
  if (name.empty()) return "name must not be empty";
  const bool valid = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
  });
  if (valid) return {};
  return fmt::format("name '{}' must match [a-z0-9._-]+ (lowercase letters, digits, '.', '_', '-')", name);
}

std::vector<int> ShapeSet::sizes() const {
  std::vector<int> sizes;
  for (const Shape& shape : shapes) sizes.push_back(shape.size);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace exactune
