// The LayerNorm + adaLN modulate family for token-major activations: the same
// problem and arithmetic as layer_norm_modulate (its spec.md), with x of
// logical shape (B, N, C) laid out as (B, C, N) in memory, as Sana's DiT
// carries it. aten first makes x contiguous; the reference does the same
// (transpose copy, aten's LayerNorm, the eager chain), and the output is the
// contiguous (B, N, C). Its variants either do that copy and then run a
// contiguous variant (read = copy, the baseline to beat) or read x in place
// (read = tile: kernels/token_major_layer_norm_modulate.cuh). Shapes, input
// cases and the row plan are the contiguous family's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <exactune/backend.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

namespace exactune {

// The variant parameters of this family, decoded from a Variant.
struct TokenMajorConfig {
  bool tile = false;  // read x in place; else copy it contiguous first
  int num_warps = 4;
  int rows_per_cta = 1;
  int vector_bytes = 8;
  bool early_modulation = false;
  bool persistent = false;  // copy variants only
  int tile_tokens = 8;      // tile variants only, from here on
  bool swizzled = false;
  int token_bytes = 4;

  static TokenMajorConfig from(const Variant& variant);
  static TokenMajorConfig decode(const std::vector<Param>& params);

  // The contiguous family's variant that a copy variant runs after its copy,
  // and whose row plan a tile variant's second step is.
  Variant contiguous_variant() const;
  // Shared memory a tile variant's CTA holds its tile in, for rows of `hidden`.
  std::int64_t tile_bytes(int hidden) const;
  // One CTA per tile of tile_tokens tokens of one batch element.
  LaunchGeometry tile_geometry(int batch, int tokens, int hidden) const;
};

// The grid of a tile variant: one CTA per tile of `tile_tokens` tokens of each
// batch element (the harness's launch and the runtime's).
unsigned token_tile_ctas(std::int64_t batch, std::int64_t tokens, int tile_tokens);

// A token-major shape from its parameters (for tests).
Shape token_major_shape(std::string name, int batch, int tokens, int hidden, double eps, int modulation_rows = 6);

const KernelFamily& layer_norm_modulate_token_major_family();

}  // namespace exactune
