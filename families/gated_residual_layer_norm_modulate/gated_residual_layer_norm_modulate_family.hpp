// The gated residual + LayerNorm + modulate family of DiT blocks, in bf16:
//   r = x + gate * h,   out = LN(r) * (1 + scale) + shift,
// both outputs bit-exact with PyTorch 2.11's eager ops (spec.md beside this
// file). It builds on layer_norm_modulate: the same problems (plus a gate row
// of the adaLN embedding and the input h), the same variant axes and names,
// the same fused template over a row source that computes r as it loads a row.
#pragma once
#include <string>
#include <vector>

#include <exactune/axis_table.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

#include "layer_norm_modulate/layer_norm_modulate_family.hpp"

namespace exactune {

// The family's axis table: layer_norm_modulate's rows and names, compiling
// kernels/gated_residual_layer_norm_modulate.cuh.
const TypedAxisTable<LayerNormModulateConfig>& gated_residual_axis_table();

// Where gate lies in the adaLN embedding of a batch element: the row after
// shift (row 0) and scale (row 1), as layer_norm_modulate's inputs place them.
inline constexpr int kGateEmbeddingRow = 2;

// A shape of this family from its parameters (for tests): it holds every
// parameter, its size and its rows. Per-token modulation is batch = B * S,
// tokens = 1, as in layer_norm_modulate.
Shape gated_residual_shape(std::string name, int batch, int tokens, int hidden, double eps, int modulation_rows = 6);

// The roofline copy of a shape, as the elements of each region it copies: x,
// h, then half as many elements as the gate, scale and shift rows the kernel
// reads (a row of each per batch element). A copy reads and writes what it
// moves, so it moves the kernel's bytes_moved: 4 bytes an element (the family's
// space test holds the two equal).
std::vector<std::int64_t> gated_residual_copy_elements(const Shape& shape);

const KernelFamily& gated_residual_layer_norm_modulate_family();

}  // namespace exactune
