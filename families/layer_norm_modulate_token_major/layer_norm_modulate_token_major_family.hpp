// The LayerNorm + adaLN modulate family for token-major activations: the same
// problem and arithmetic as layer_norm_modulate (its spec.md), with x of
// logical shape (B, N, C) laid out as (B, C, N) in memory, as Sana's DiT
// carries it. aten first makes x contiguous; the reference does the same
// (transpose copy, aten's LayerNorm, the eager chain), and the output is the
// contiguous (B, N, C). Its variants either do that copy and then run a
// contiguous variant (read = copy, the baseline to beat) or read x in place
// (read = tile or lanes, below). Shapes, input
// cases and the row plan are the contiguous family's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <exactune/axis_table.hpp>
#include <exactune/backend.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

namespace exactune {

// How a variant's x reaches its kernel: copied contiguous first (aten's way),
// or read in place, transposed through shared memory a tile at a time
// (kernels/token_major_layer_norm_modulate.cuh) or by threads that each stand
// in for one aten lane over several tokens (kernels/token_major_lanes.cuh).
enum class TokenMajorRead { copy, tile, lanes };

// The variant parameters of this family, decoded from a Variant by its axis
// table (layer_norm_modulate_token_major_axes.cpp).
struct TokenMajorConfig {
  TokenMajorRead read = TokenMajorRead::copy;
  int num_warps = 4;
  int rows_per_cta = 1;
  int vector_bytes = 8;
  bool early_modulation = false;
  bool persistent = false;  // copy variants only
  int tile_tokens = 8;      // in-place variants only, from here on
  bool swizzled = false;    // tile variants only
  int token_bytes = 4;
  int tiles_per_cta = 1;  // lanes variants only

  bool in_place() const { return read != TokenMajorRead::copy; }
  // Lanes variants: the threads that share one aten lane, each with
  // token_bytes / 2 tokens of the tile (1, 2 or 4 valid).
  int run_threads() const { return tile_tokens / (token_bytes / 2); }
  // How many tokens of a batch element one CTA normalises (a lanes CTA's
  // tiles are strided, not consecutive).
  int cta_tokens() const { return tile_tokens * tiles_per_cta; }

  static TokenMajorConfig from(const Variant& variant);
  static TokenMajorConfig decode(const std::vector<Param>& params);
  static const TypedAxisTable<TokenMajorConfig>& table();

  // The contiguous family's variant that a copy variant runs after its copy,
  // and whose row plan a tile variant's second step is.
  Variant contiguous_variant() const;
  // Dynamic shared memory an in-place variant's CTA holds its tile in, for
  // rows of `hidden` (lanes variants: the staged next tile, none for one tile).
  std::int64_t tile_bytes(int hidden) const;
  // In-place variants: one CTA per cta_tokens() tokens of one batch element.
  LaunchGeometry tile_geometry(int batch, int tokens, int hidden) const;
};

// The grid of an in-place variant: one CTA per `cta_tokens` tokens of each
// batch element (the harness's launch and the runtime's).
unsigned token_tile_ctas(std::int64_t batch, std::int64_t tokens, int cta_tokens);

// A token-major shape from its parameters (for tests).
Shape token_major_shape(std::string name, int batch, int tokens, int hidden, double eps, int modulation_rows = 6);

const KernelFamily& layer_norm_modulate_token_major_family();

}  // namespace exactune
