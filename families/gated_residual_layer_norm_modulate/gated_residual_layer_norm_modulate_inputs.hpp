// Seeded inputs of the gated residual family: layer_norm_modulate's x and adaLN
// embedding (its cases, shift and scale rows), plus the block's output h as
// (rows, hidden) bf16 and gate as a third row of the embedding.
#pragma once
#include <cstdint>
#include <vector>

#include <exactune/shapes.hpp>

#include "layer_norm_modulate/layer_norm_modulate_inputs.hpp"

namespace exactune {

struct GatedResidualInputs {
  ModulateInputs modulate;       // x (the residual stream), the embedding with shift and scale, eps
  std::vector<std::uint16_t> h;  // rows * hidden
  std::int64_t gate_offset = 0;  // elements from the embedding's start to gate's row of batch 0
};

// h follows x's case: amplitude * N(0, 1), or signed zeros where x has them,
// so that r = x + gate * h keeps the case's magnitudes. gate holds -1, -0, 0
// and 1 at some columns (the product is then -h, a signed zero and h).
GatedResidualInputs make_gated_residual_inputs(const Shape& shape, const ModulateCase& c, std::uint64_t seed);

}  // namespace exactune
