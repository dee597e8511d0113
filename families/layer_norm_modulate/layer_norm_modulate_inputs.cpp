#include "layer_norm_modulate_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include <exactune/error.hpp>

#include "layer_norm_modulate_family.hpp"

namespace exactune {

std::uint16_t bf16_from_float(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

std::vector<ModulateCase> modulate_cases(double shape_eps) {
  // Ascending, so that shapes at 1e-6 or 1e-5 keep the order of their cases.
  const double other_eps = shape_eps == 1e-6 ? 1e-5 : 1e-6;
  std::vector<ModulateCase> cases;
  for (double amplitude : {1e-4, 1.0, 100.0}) {
    for (double eps : {std::min(shape_eps, other_eps), std::max(shape_eps, other_eps)}) {
      cases.push_back({fmt::format("a{:g}_e{:g}", amplitude, eps), amplitude, 0.0, eps, false});
    }
  }
  // Around 100 the Welford combines round differently for every operand order:
  // N(0, 1) alone hides a swapped FMA or a reordered tree in most rows.
  cases.push_back({fmt::format("offset100_e{:g}", shape_eps), 1.0, 100.0, shape_eps, false});
  cases.push_back({fmt::format("signed_zeros_e{:g}", shape_eps), 1.0, 0.0, shape_eps, true});
  return cases;
}

ModulateCase find_modulate_case(double shape_eps, const std::string& name) {
  for (const ModulateCase& c : modulate_cases(shape_eps)) {
    if (c.name == name) return c;
  }
  throw error(fmt::format("no input case named '{}' for eps {:g}", name, shape_eps));
}

ModulateInputs make_modulate_inputs(const Shape& shape, const ModulateCase& c, std::uint64_t seed) {
  const std::int64_t rows = shape.rows();
  const ModulateProblem p = ModulateProblem::of(shape);
  const int hidden = p.hidden;
  if (p.modulation_stride < 2LL * hidden) {
    throw error(fmt::format("shape {}: scale and shift need two rows of the embedding (modulation stride {} < 2 * {})",
                            shape.name, p.modulation_stride, hidden));
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);

  ModulateInputs in;
  in.eps = static_cast<float>(c.eps);
  in.x.resize(static_cast<std::size_t>(rows) * hidden);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float mu = uniform(rng);
    std::uint16_t* row = in.x.data() + r * hidden;
    for (int i = 0; i < hidden; ++i) {
      if (c.signed_zeros) {
        // Whole rows of zeros (variance 0, rstd = rsqrt(eps)) and rows with a few
        // nonzero values among signed zeros.
        const bool zero = (r % 3 != 2) || (rng() % 8 != 0);
        row[i] = zero ? ((rng() & 1) ? 0x8000 : 0x0000) : bf16_from_float(normal(rng));
      } else {
        row[i] = bf16_from_float(static_cast<float>(c.offset + c.amplitude * (mu + normal(rng))));
      }
    }
  }

  // Embedding (batch, k, hidden): shift is row 0, scale is row 1 of each batch.
  in.embedding.resize(static_cast<std::size_t>(p.batch) * p.modulation_stride);
  for (std::uint16_t& e : in.embedding) e = bf16_from_float(uniform(rng));
  in.shift_offset = 0;
  in.scale_offset = hidden;
  static constexpr std::uint16_t kSpecialScales[] = {0xbf80 /* -1 */, 0x0000 /* 0 */, 0x3f80 /* 1 */, 0x8000 /* -0 */};
  for (int b = 0; b < p.batch; ++b) {
    std::uint16_t* scale = in.embedding.data() + b * p.modulation_stride + in.scale_offset;
    std::uint16_t* shift = in.embedding.data() + b * p.modulation_stride + in.shift_offset;
    for (int i = 0; i < hidden; i += 7) scale[i] = kSpecialScales[(i / 7) % 4];
    if (c.signed_zeros) {
      for (int i = 0; i < hidden; ++i) {
        if (i % 2 == 0) shift[i] = (i % 4 == 0) ? 0x0000 : 0x8000;
      }
    }
  }
  return in;
}

std::vector<InputCase> modulate_input_cases(double shape_eps, const DescribeModulateCase& describe) {
  std::vector<InputCase> cases;
  for (const ModulateCase& c : modulate_cases(shape_eps)) cases.push_back(describe(c));
  return cases;
}

InputCase modulate_timing_case(double shape_eps, const DescribeModulateCase& describe) {
  return describe(find_modulate_case(shape_eps, fmt::format("a1_e{:g}", shape_eps)));
}

}  // namespace exactune
