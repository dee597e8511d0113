// Shapes: the named problems a sweep runs (shape files are read by
// harness/shapes/shape_file.hpp). A shape is one call
// of a family's kernel. The core keeps the shape's parameters as the family
// declared them (KernelFamily::shape_parameters) and never interprets one; the
// family derives from them the two numbers the core does use: the size that
// variants are compiled for, and the row count that tables are bucketed by.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace exactune {

class KernelFamily;

struct ShapeParameter {
  std::string name;  // as the family declares it
  double value = 0;  // integers too: every integer parameter is exact in a double up to 2^53
  bool integer = true;

  std::string text() const;  // as a YAML scalar: "2240", "1e-06"
};

struct Shape {
  std::string name;                        // unique in its set, e.g. "sana-1024px"
  std::string model;                       // e.g. "Sana 1024px"
  std::vector<ShapeParameter> parameters;  // the family's, in its order, defaults filled in
  int size = 0;                            // what a variant is specialised for (KernelFamily::size_parameter)
  std::int64_t row_count = 0;              // rows of `size` elements one call processes

  std::int64_t rows() const { return row_count; }
  // A parameter's value; throws exactune::error when the shape has none of that name.
  double number(std::string_view parameter) const;
  std::int64_t integer(std::string_view parameter) const;
  // "name=value" of every parameter, e.g. "batch=2, tokens=1024, ...".
  std::string describe_parameters() const;
};

struct ShapeSet {
  std::string family;  // the family the shapes are problems of
  std::string source;  // file name, or "<embedded default of FAMILY>"
  std::vector<Shape> shapes;

  std::vector<int> sizes() const;  // distinct, ascending
};

// The most shapes a set (a shape file, a sweep) may hold: every one is swept,
// so a set past this is a mistake, and below it whatever compares two sets
// shape by shape (the gate) stays quick.
inline constexpr std::size_t kMaxShapes = 10000;

// `rows` rows as outer x inner, outer the largest divisor of `rows` not above
// `outer_limit` (at least 1): how a family cuts a problem to exactly `rows`
// rows (KernelFamily::with_rows_at_most) while keeping as many of its outer
// units (the outer dimensions its rows run over) as divide them.
struct RowSplit {
  std::int64_t outer = 1;
  std::int64_t inner = 1;
};
RowSplit split_rows(std::int64_t rows, std::int64_t outer_limit);

// Why `name` cannot name a shape, "" when it can: a name is [a-z0-9._-]+, so
// that it is safe in a file name (the reports write heatmap_<name>.svg).
std::string shape_name_problem(std::string_view name);

}  // namespace exactune
