// The gated residual family's seeded inputs (gated_residual_layer_norm_modulate_inputs.hpp).
#include "gated_residual_layer_norm_modulate_inputs.hpp"

#include <fmt/format.h>

#include <random>

#include <exactune/error.hpp>

#include "gated_residual_layer_norm_modulate_family.hpp"

namespace exactune {

GatedResidualInputs make_gated_residual_inputs(const Shape& shape, const ModulateCase& c, std::uint64_t seed) {
  const ModulateProblem p = ModulateProblem::of(shape);
  if (p.modulation_stride < (kGateEmbeddingRow + 1LL) * p.hidden) {
    throw error(
        fmt::format("shape {}: gate, shift and scale need three rows of the embedding (modulation stride {} "
                    "< 3 * {})",
                    shape.name, p.modulation_stride, p.hidden));
  }
  GatedResidualInputs in;
  in.modulate = make_modulate_inputs(shape, c, seed);
  in.gate_offset = static_cast<std::int64_t>(kGateEmbeddingRow) * p.hidden;

  // A stream of its own, so that x and the embedding are layer_norm_modulate's for the same seed.
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const std::int64_t rows = shape.rows();
  in.h.resize(static_cast<std::size_t>(rows) * p.hidden);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::uint16_t* row = in.h.data() + r * p.hidden;
    for (int i = 0; i < p.hidden; ++i) {
      if (c.signed_zeros) {
        const bool zero = (r % 3 != 2) || (rng() % 8 != 0);
        row[i] = zero ? ((rng() & 1) ? 0x8000 : 0x0000) : bf16_from_float(normal(rng));
      } else {
        row[i] = bf16_from_float(static_cast<float>(c.amplitude * normal(rng)));
      }
    }
  }
  // The embedding's values are U(-1, 1) already; gate's row gets its specials.
  static constexpr std::uint16_t kSpecialGates[] = {0xbf80 /* -1 */, 0x8000 /* -0 */, 0x0000 /* 0 */, 0x3f80 /* 1 */};
  for (int b = 0; b < p.batch; ++b) {
    std::uint16_t* gate = in.modulate.embedding.data() + b * p.modulation_stride + in.gate_offset;
    for (int i = 0; i < p.hidden; i += 5) gate[i] = kSpecialGates[(i / 5) % 4];
  }
  return in;
}

}  // namespace exactune
