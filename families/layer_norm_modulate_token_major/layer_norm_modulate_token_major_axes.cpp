// The axis table of the layer_norm_modulate_token_major family: each axis of
// its variant space, its values and their spellings as kernel template
// arguments, and the family's three parts, one per read of x: copy (the
// contiguous family's kernel behind a transpose copy, built by the family
// itself), tile and lanes (kernels/). Each part names its variants its own way
// and holds the axes that are no lever of its kernel at their first values. It
// is the family's axes(), its variant names, the decoding into
// TokenMajorConfig, the exclusions of held axes, which axis applies where (for
// the reports) and the name expressions of the in-place reads.
#include "layer_norm_modulate_token_major_family.hpp"

namespace exactune {
namespace {

// Held by the copy and tile parts alike.
constexpr const char* kOneTileACta = "only a lanes variant normalises several tiles a CTA";

}  // namespace

const TypedAxisTable<TokenMajorConfig>& TokenMajorConfig::table() {
  using C = TokenMajorConfig;
  static const TypedAxisTable<C> table(
      {
          // The part axis: it picks the kernel, and is no template argument.
          axis_row("read",
                   "how x reaches the kernel: made contiguous by a transpose copy, then a contiguous variant (copy, "
                   "what aten and serving frameworks do), or read in place, a tile of tokens at a time, transposed "
                   "in shared memory (tile), or with no transpose, each thread one of aten's lanes for several "
                   "tokens (lanes)",
                   &C::read,
                   {{"copy", TokenMajorRead::copy, ""},
                    {"tile", TokenMajorRead::tile, ""},
                    {"lanes", TokenMajorRead::lanes, ""}}),
          // The lanes kernel takes the threads that share an aten lane, 4 warps
          // each (the exclusion keeps tile_tokens their runs' tokens).
          axis_row("num_warps", "warps per CTA (lanes: 4 for each thread that shares a lane)", &C::num_warps,
                   numerals({2, 4, 8, 16}))
              .spelled_in("lanes", {"", "1", "2", "4"}),
          axis_row("rows_per_cta", "rows a CTA normalises at once (copy: rows per CTA)", &C::rows_per_cta,
                   numerals({1, 2, 4, 8})),
          // The tile kernel counts the aten vectors (4 bf16, 8 bytes) of one load.
          axis_row("vector_bytes", "bytes per load and store of a row (4 or 8 bf16)", &C::vector_bytes,
                   {{"8", 8, "1"}, {"16", 16, "2"}}),
          axis_row("modulation",
                   "when scale and shift are loaded: with each row's pass 2 (late), or before the row's "
                   "pass 1 and held (early; a tile's rows share them, so once per CTA)",
                   &C::early_modulation,
                   {{"late", false, "exactune_kernels::modulation_late"},
                    {"early", true, "exactune_kernels::modulation_early"}}),
          // A lever of the copy part only, whose kernel the contiguous family spells.
          axis_row("grid",
                   "copy variants: one CTA per group of rows (full) or a persistent grid; tile variants: one CTA "
                   "per tile (full)",
                   &C::persistent, {{"full", false, ""}, {"persistent", true, ""}}),
          // Not an argument of the lanes kernel: there it is the threads that
          // share a lane (num_warps) times each one's tokens (token_bytes).
          axis_row("tile_tokens",
                   "in-place variants: tokens per CTA, read along N (16 fill a 32-byte sector; fewer make "
                   "more, smaller CTAs)",
                   &C::tile_tokens, numerals({8, 2, 4, 16, 32})),
          axis_row("tile_layout",
                   "tile variants: shared-memory rows padded by one packet (padded), or rows whose 16-byte "
                   "units are permuted by an XOR of the token so that one store's tokens fall in different "
                   "banks (swizzled)",
                   &C::swizzled,
                   {{"padded", false, "exactune_kernels::tile_padded"},
                    {"swizzled", true, "exactune_kernels::tile_swizzled"}}),
          // The tile kernel counts 4-byte words per load, the lanes kernel each thread's tokens.
          axis_row("token_bytes",
                   "in-place variants: bytes per load along N (2, 4 or 8 tokens; lanes: the tokens each "
                   "thread carries); partial or misaligned runs are read a token at a time",
                   &C::token_bytes, {{"4", 4, "1"}, {"8", 8, "2"}, {"16", 16, "4"}})
              .spelled_in("lanes", {"2", "4", "8"}),
          axis_row("tiles_per_cta",
                   "lanes variants: tiles a CTA normalises (strided by the batch element's CTAs), the next "
                   "one copied to shared memory while the current one is reduced and stored",
                   &C::tiles_per_cta, numerals({1, 2, 4})),
      },
      "read",
      {
          // Its kernel is the contiguous family's (variant_request), so the
          // usual copy name leaves the tile axes out.
          AxisPart{
              .name = "copy",
              .name_layout = {"copy_w{num_warps}_r{rows_per_cta}_v{vector_bytes}_{modulation}_{grid}",
                              unless_first("_tile{tile_tokens}_{tile_layout}_n{token_bytes}"),
                              unless_first("_x{tiles_per_cta}")},
              .held = {{{"tiles_per_cta"}, kOneTileACta},
                       {{"tile_tokens", "tile_layout", "token_bytes"},
                        "a copy variant reads no tile: tile_tokens, tile_layout and token_bytes keep their first "
                        "values"}},
          },
          AxisPart{
              .name = "tile",
              .name_layout = {"tile{tile_tokens}_{tile_layout}_n{token_bytes}_w{num_warps}_r{rows_per_cta}_"
                              "v{vector_bytes}_{modulation}",
                              unless_first("_{grid}"), unless_first("_x{tiles_per_cta}")},
              .held = {{{"tiles_per_cta"}, kOneTileACta},
                       {{"grid"}, "a tile variant's CTA normalises its own tile: one CTA per tile (full)"}},
              .kernel =
                  KernelTemplate{"families/layer_norm_modulate_token_major/kernels/token_major_layer_norm_modulate.cuh",
                                 "&exactune_kernels::token_major_layer_norm_modulate",
                                 {"num_warps", "rows_per_cta", "vector_bytes", "modulation", "tile_tokens",
                                  "tile_layout", "token_bytes"}},
          },
          // A lanes variant's row plan is its own: a thread is an aten lane.
          AxisPart{
              .name = "lanes",
              .name_layout = {"lanes{tile_tokens}", unless_first("x{tiles_per_cta}"),
                              "_n{token_bytes}_w{num_warps}_{modulation}",
                              unless_first("_r{rows_per_cta}_v{vector_bytes}_{tile_layout}_{grid}")},
              .held = {{{"rows_per_cta", "vector_bytes", "tile_layout", "grid"},
                        "a lanes variant's threads are aten's lanes: rows_per_cta, vector_bytes, grid and "
                        "tile_layout keep their first values"}},
              .kernel = KernelTemplate{"families/layer_norm_modulate_token_major/kernels/token_major_lanes.cuh",
                                       "&exactune_kernels::token_major_lanes_layer_norm_modulate",
                                       {"num_warps", "token_bytes", "modulation", "tiles_per_cta"}},
          },
      });
  return table;
}

TokenMajorConfig TokenMajorConfig::decode(const std::vector<Param>& params) { return table().decode(params); }

TokenMajorConfig TokenMajorConfig::from(const Variant& variant) { return decode(variant.params); }

}  // namespace exactune
