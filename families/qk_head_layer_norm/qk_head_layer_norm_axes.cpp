// The axis table of the qk_head_layer_norm family: each axis of its variant
// space, its values and their spellings as arguments of the fused kernel
// (kernels/fused_qk_head_layer_norm.cuh). It is the family's axes(), its variant
// names, the decoding into QkHeadLayerNormConfig and the name expression of its
// compile requests.
#include "qk_head_layer_norm_family.hpp"

namespace exactune {

const TypedAxisTable<QkHeadLayerNormConfig>& QkHeadLayerNormConfig::table() {
  using C = QkHeadLayerNormConfig;
  static const TypedAxisTable<C> table(
      {
          axis_row("num_warps", "warps per CTA", &C::num_warps, numerals({1, 2, 4, 8})),
          axis_row("rows_per_cta",
                   "head rows one CTA normalises; a row gets 32 * num_warps / rows_per_cta threads of one warp",
                   &C::rows_per_cta, numerals({1, 2, 4, 8, 16, 32, 64})),
          // The kernel counts the aten vectors (4 bf16, 8 bytes) of one load.
          axis_row("vector_bytes", "bytes per load and store (4 or 8 bf16: one or two of aten's vectors)",
                   &C::vector_bytes, {{"8", 8, "1"}, {"16", 16, "2"}}),
          axis_row(
              "counts",
              "Welford's counts: carried with the data, shuffled with it and turned into weights at each "
              "combine (rcp), or derived from the aten lane and head_dim, so that shuffles move mean and m2 "
              "only and the weights are computed off the data's path (fold)",
              &C::folded_counts,
              {{"rcp", false, "exactune_kernels::qk_counts_rcp"}, {"fold", true, "exactune_kernels::qk_counts_fold"}}),
          axis_row("qk_grid",
                   "one grid whose first CTAs serve q and the rest k (joint), or one launch per tensor (split)",
                   &C::split_grid,
                   {{"joint", false, "exactune_kernels::qk_grid_joint"},
                    {"split", true, "exactune_kernels::qk_grid_split"}}),
      },
      AxisPart{
          .name_layout = {"w{num_warps}_r{rows_per_cta}_v{vector_bytes}_{counts}_{qk_grid}"},
          .kernel = KernelTemplate{"families/qk_head_layer_norm/kernels/fused_qk_head_layer_norm.cuh",
                                   "&exactune_kernels::fused_qk_head_layer_norm",
                                   {"num_warps", "rows_per_cta", "vector_bytes", "counts", "qk_grid"}},
      });
  return table;
}

QkHeadLayerNormConfig QkHeadLayerNormConfig::from(const Variant& variant) { return table().decode(variant.params); }

}  // namespace exactune
