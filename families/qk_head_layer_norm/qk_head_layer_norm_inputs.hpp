// Seeded inputs of the per-head q/k LayerNorm family: q and k as (rows,
// head_dim) bf16 each, rows = batch * tokens * heads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <exactune/shapes.hpp>

namespace exactune {

enum class QkValues {
  normal,        // offset + amplitude * N(mu_row, 1), mu_row ~ U(-1, 1)
  signed_zeros,  // rows of +0/-0 (variance 0) and rows of sparse N(0, 1) among signed zeros
  denormals,     // bf16 denormals among signed zeros: statistics whose mean is -0 before aten's last combines
};

struct QkCase {
  std::string name;
  double amplitude = 1.0;
  double offset = 0.0;  // a large common offset makes the combines' rounding matter
  double eps = 1e-6;
  QkValues values = QkValues::normal;
};

struct QkInputs {
  std::vector<std::uint16_t> q;  // rows * head_dim
  std::vector<std::uint16_t> k;  // rows * head_dim
  float eps = 0;                 // the float32 cast of the double eps, as aten takes it
};

// The cases of a shape whose eps is `shape_eps`: each at the shape's own eps,
// the amplitude and signed-zero cases also at a second one (1e-6 or 1e-5,
// whichever the shape does not use), since a kernel takes eps at run time.
std::vector<QkCase> qk_cases(double shape_eps);
// Throws exactune::error when the shape has no case of that name.
QkCase find_qk_case(double shape_eps, const std::string& name);

QkInputs make_qk_inputs(const Shape& shape, const QkCase& c, std::uint64_t seed);

}  // namespace exactune
