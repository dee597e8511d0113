// The axis table of the layer_norm_modulate family: each axis of its variant
// space, its values and their spellings as arguments of the fused kernel
// (kernels/fused_layer_norm_modulate.cuh). It is the family's axes(), its
// variant names, the decoding into LayerNormModulateConfig and the name
// expression of its compile requests. A family whose kernel runs the same
// template through another row source (gated_residual_layer_norm_modulate)
// builds its table from the same rows and names, with its own kernel.
#include <utility>

#include "layer_norm_modulate_family.hpp"

namespace exactune {

std::vector<TypedAxisRow<LayerNormModulateConfig>> LayerNormModulateConfig::axis_rows() {
  using C = LayerNormModulateConfig;
  return {
      axis_row("num_warps", "warps per CTA", &C::num_warps, numerals({1, 2, 4, 8, 16})),
      axis_row("rows_per_cta", "rows one CTA normalises at once", &C::rows_per_cta, numerals({1, 2, 4, 8})),
      axis_row("tail",
               "how the last, partial chunk of a row is masked: every chunk guarded (predicated) "
               "or full chunks unguarded and the partial one resolved at compile time (peeled)",
               &C::peeled_tail,
               {{"predicated", false, "exactune_kernels::tail_predicated"},
                {"peeled", true, "exactune_kernels::tail_peeled"}}),
      // The kernel counts the aten vectors (4 bf16, 8 bytes) of one load.
      axis_row("vector_bytes", "bytes per load and store (4 or 8 bf16)", &C::vector_bytes,
               {{"8", 8, "1"}, {"16", 16, "2"}}),
      axis_row("pass2", "where the second pass reads x: again from memory (reload) or from registers",
               &C::row_in_registers,
               {{"reload", false, "exactune_kernels::pass2_reload"},
                {"registers", true, "exactune_kernels::pass2_registers"}}),
      axis_row("counts",
               "Welford's 1/count: computed from the counts carried with the data at each push and combine "
               "(rcp), or derived from the lane and hidden size, folded at compile time where constant and "
               "off the critical path elsewhere (fold)",
               &C::folded_counts,
               {{"rcp", false, "exactune_kernels::counts_runtime"}, {"fold", true, "exactune_kernels::counts_folded"}}),
      axis_row("modulation",
               "when scale and shift are loaded: in pass 2 (late) or with x in pass 1, held in registers "
               "across the reduction (early)",
               &C::early_modulation,
               {{"late", false, "exactune_kernels::modulation_late"},
                {"early", true, "exactune_kernels::modulation_early"}}),
      axis_row("elementwise",
               "the chain after the statistics: float32 steps each rounded to bf16 (f32), or its three "
               "bf16 steps as packed bf16x2 instructions that round once (bf16x2)",
               &C::packed_bf16x2,
               {{"f32", false, "exactune_kernels::elementwise_float32"},
                {"bf16x2", true, "exactune_kernels::elementwise_bf16x2"}}),
      axis_row(
          "grid",
          "one CTA per group of rows (full), or as many CTAs as the GPU holds at once, each looping over "
          "row groups and loading the next group's x while it reduces and writes the current one "
          "(persistent; needs pass2 registers)",
          &C::persistent,
          {{"full", false, "exactune_kernels::grid_full"}, {"persistent", true, "exactune_kernels::grid_persistent"}}),
  };
}

AxisPart LayerNormModulateConfig::axis_part(std::string main_file, std::string kernel) {
  return AxisPart{
      .name_layout = {"w{num_warps}_r{rows_per_cta}_{tail}_v{vector_bytes}_{pass2}_{counts}_{modulation}_"
                      "{elementwise}_{grid}"},
      .kernel = KernelTemplate{std::move(main_file),
                               std::move(kernel),
                               {"num_warps", "rows_per_cta", "vector_bytes", "tail", "pass2", "counts", "modulation",
                                "elementwise", "grid"}},
  };
}

const TypedAxisTable<LayerNormModulateConfig>& LayerNormModulateConfig::table() {
  static const TypedAxisTable<LayerNormModulateConfig> table(
      axis_rows(), axis_part("families/layer_norm_modulate/kernels/fused_layer_norm_modulate.cuh",
                             "&exactune_kernels::fused_layer_norm_modulate"));
  return table;
}

LayerNormModulateConfig LayerNormModulateConfig::from(const Variant& variant) { return table().decode(variant.params); }

Variant LayerNormModulateConfig::variant() const {
  Variant v;
  v.params = table().encode(*this);
  v.name = table().variant_name(v.params);
  return v;
}

}  // namespace exactune
