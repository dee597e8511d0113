#include "qk_head_layer_norm_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>

#include <exactune/error.hpp>

#include "qk_head_layer_norm_family.hpp"

namespace exactune {
namespace {

std::uint16_t to_bf16(float f) {  // round to nearest even, as the kernels do
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

constexpr std::uint16_t kPlusZero = 0x0000, kMinusZero = 0x8000;
constexpr std::uint16_t kLeastDenormal = 0x0001;  // 2^-133, the least bf16 denormal

void fill_rows(std::uint16_t* x, std::int64_t rows, int head_dim, const QkCase& c, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto signed_zero = [&] { return (rng() & 1) ? kMinusZero : kPlusZero; };
  for (std::int64_t r = 0; r < rows; ++r) {
    const float mu = uniform(rng);
    std::uint16_t* row = x + r * head_dim;
    for (int i = 0; i < head_dim; ++i) {
      switch (c.values) {
        case QkValues::normal: row[i] = to_bf16(static_cast<float>(c.offset + c.amplitude * (mu + normal(rng)))); break;
        case QkValues::signed_zeros: {
          // Whole rows of zeros (variance 0, rstd = rsqrt(eps)) and rows with a
          // few nonzero values among signed zeros.
          const bool zero = (r % 3 != 2) || (rng() % 8 != 0);
          row[i] = zero ? signed_zero() : to_bf16(normal(rng));
          break;
        }
        case QkValues::denormals:
          if (r % 2 == 1) {
            // Every vector (+-0, +-0, q, -q), q the least denormal: the lane's
            // fourth push computes (-q + 3 RN(q / 3)) / 4 = -2^-151, which rounds
            // to -0, so every lane's mean is -0; at head_dim 128 the whole warp
            // tree then keeps -0, and only aten's cross-warp C(w0, Z) makes it +0
            // (which shows in the sign of y for the row's -0 inputs).
            const int e = i % 4;
            row[i] = e < 2 ? signed_zero() : static_cast<std::uint16_t>(kLeastDenormal | (e == 3 ? kMinusZero : 0));
          } else {
            // Denormals of a few quanta among signed zeros: combines whose means
            // cancel and underflow to -0 at other head sizes.
            row[i] = signed_zero();
            if (rng() % 8 < 4) row[i] = static_cast<std::uint16_t>(row[i] | (1 + rng() % 5));
          }
          break;
      }
    }
  }
}

}  // namespace

std::vector<QkCase> qk_cases(double shape_eps) {
  // Ascending, so that shapes at 1e-6 or 1e-5 keep the order of their cases.
  const double other_eps = shape_eps == 1e-6 ? 1e-5 : 1e-6;
  const double epsilons[] = {std::min(shape_eps, other_eps), std::max(shape_eps, other_eps)};
  std::vector<QkCase> cases;
  for (double amplitude : {1e-4, 1.0, 100.0}) {
    for (double eps : epsilons) {
      cases.push_back({fmt::format("a{:g}_e{:g}", amplitude, eps), amplitude, 0.0, eps, QkValues::normal});
    }
  }
  // Around 100 the Welford combines round differently for every operand order.
  cases.push_back({fmt::format("offset100_e{:g}", shape_eps), 1.0, 100.0, shape_eps, QkValues::normal});
  // Variance-0 rows: rstd is rsqrt(eps), so both epsilons.
  for (double eps : epsilons) {
    cases.push_back({fmt::format("signed_zeros_e{:g}", eps), 1.0, 0.0, eps, QkValues::signed_zeros});
  }
  // The one case that tells a kernel skipping aten's combines with its empty
  // warps (C(C(w0, Z), C(Z, Z))) from aten: see spec.md.
  cases.push_back({fmt::format("denormals_e{:g}", shape_eps), 1.0, 0.0, shape_eps, QkValues::denormals});
  return cases;
}

QkCase find_qk_case(double shape_eps, const std::string& name) {
  for (const QkCase& c : qk_cases(shape_eps)) {
    if (c.name == name) return c;
  }
  throw error(fmt::format("qk_head_layer_norm: no input case named '{}' for eps {:g}", name, shape_eps));
}

QkInputs make_qk_inputs(const Shape& shape, const QkCase& c, std::uint64_t seed) {
  const QkHeadProblem p = QkHeadProblem::of(shape);
  const std::int64_t rows = p.rows();
  std::mt19937_64 rng(seed);
  QkInputs in;
  in.eps = static_cast<float>(c.eps);
  in.q.resize(static_cast<std::size_t>(rows * p.head_dim));
  in.k.resize(static_cast<std::size_t>(rows * p.head_dim));
  fill_rows(in.q.data(), rows, p.head_dim, c, rng);
  fill_rows(in.k.data(), rows, p.head_dim, c, rng);
  return in;
}

}  // namespace exactune
