// Seeded inputs of the LayerNorm + modulate family: x as (rows, hidden) bf16 and
// the adaLN embedding as (batch, k, hidden) bf16, with scale and shift two of
// its k rows, as diffusion transformers lay them out.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <exactune/shapes.hpp>
#include <exactune/workload.hpp>

namespace exactune {

struct ModulateCase {
  std::string name;
  double amplitude = 1.0;  // x ~ offset + amplitude * N(mu_row, 1), mu_row ~ U(-1, 1)
  double offset = 0.0;     // a large common offset makes the combine's rounding matter
  double eps = 1e-6;
  bool signed_zeros = false;  // rows of +0 and -0 only, shift of signed zeros
};

struct ModulateInputs {
  std::vector<std::uint16_t> x;          // rows * hidden
  std::vector<std::uint16_t> embedding;  // batch * modulation_stride
  std::int64_t scale_offset = 0;         // elements from embedding start to scale's row of batch 0
  std::int64_t shift_offset = 0;
  float eps = 0;  // the float32 cast of the double eps, as aten takes it
};

// The cases of a shape whose eps is `shape_eps`: every case runs at the shape's
// own eps, and the amplitude cases also at a second one (1e-6 or 1e-5,
// whichever the shape does not use), since a kernel takes eps at run time.
std::vector<ModulateCase> modulate_cases(double shape_eps);
// Throws exactune::error when the shape has no case of that name.
ModulateCase find_modulate_case(double shape_eps, const std::string& name);

// A family's input cases over these cases, each worded by `describe` (the
// families that draw their inputs this way say what else they draw), and the
// case it is timed on: amplitude 1 at the shape's own eps.
using DescribeModulateCase = std::function<InputCase(const ModulateCase&)>;
std::vector<InputCase> modulate_input_cases(double shape_eps, const DescribeModulateCase& describe);
InputCase modulate_timing_case(double shape_eps, const DescribeModulateCase& describe);

// Scale always holds -1, 0 and 1 at some columns (1 + scale is then 0, 1 and 2).
ModulateInputs make_modulate_inputs(const Shape& shape, const ModulateCase& c, std::uint64_t seed);

std::uint16_t bf16_from_float(float f);  // round to nearest even, as the kernels do

}  // namespace exactune
