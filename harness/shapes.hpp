// Shapes: the named problems a sweep runs, read from YAML. A shape is one call of
// the fused kernel: x is (batch, tokens, hidden) bf16; scale and shift are rows of
// a (batch, k, hidden) embedding, batch b's row starting at b * modulation_stride
// elements (hidden for a contiguous (B, 1, D) tensor, k * hidden for one chunk of
// a (B, k, D) embedding).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace exactune {

struct Shape {
  std::string name;    // unique in its set, e.g. "sana-1024px"
  std::string model;   // e.g. "Sana 1024px"
  int batch = 0;
  int tokens = 0;
  int hidden = 0;
  double eps = 0.0;
  std::int64_t modulation_stride = 0;  // elements between batch rows of scale/shift

  std::int64_t rows() const { return static_cast<std::int64_t>(batch) * tokens; }
};

struct ShapeSet {
  std::string source;  // file name, or "<embedded default>"
  std::vector<Shape> shapes;

  std::vector<int> hidden_sizes() const;  // distinct, ascending
};

// Parses a YAML shape set; `source` names it in error messages. Throws
// exactune::error "<source>:<line>: <what is wrong>" on any invalid input.
ShapeSet parse_shapes(std::string_view yaml_text, const std::string& source);
ShapeSet load_shapes_file(const std::string& path);
// The set embedded in the binary at build time (shapes/default.yaml).
ShapeSet default_shapes();

}  // namespace exactune
