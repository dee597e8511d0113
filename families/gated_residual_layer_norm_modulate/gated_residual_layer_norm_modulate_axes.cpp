// The axis table of the gated residual family: layer_norm_modulate's axes,
// values and variant names (a variant of either family is the same launch
// shape), with this family's kernel as the one the table compiles.
#include "gated_residual_layer_norm_modulate_family.hpp"

namespace exactune {

const TypedAxisTable<LayerNormModulateConfig>& gated_residual_axis_table() {
  static const TypedAxisTable<LayerNormModulateConfig> table(
      LayerNormModulateConfig::axis_rows(),
      LayerNormModulateConfig::axis_part(
          "families/gated_residual_layer_norm_modulate/kernels/gated_residual_layer_norm_modulate.cuh",
          "&exactune_kernels::gated_residual_layer_norm_modulate"));
  return table;
}

}  // namespace exactune
