// The second kernel family: per-head LayerNorm (no affine) of attention's q and
// k in bf16,
//   q_out = F.layer_norm(q, (head_dim,), eps), k_out = F.layer_norm(k, (head_dim,), eps),
// with q and k (batch, tokens, heads, head_dim), both in one launch, bit-exact
// with PyTorch 2.11's eager aten kernel (spec.md beside this file).
#pragma once
#include <cstdint>
#include <string>

#include <exactune/axis_table.hpp>
#include <exactune/backend.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

namespace exactune {

// The variant parameters of this family, decoded from a Variant by its axis
// table (qk_head_layer_norm_axes.cpp).
struct QkHeadLayerNormConfig {
  int num_warps = 4;
  int rows_per_cta = 4;
  int vector_bytes = 8;        // 8 or 16
  bool folded_counts = false;  // else Welford counts carried with the data
  bool split_grid = false;     // one launch per tensor; else one grid for q and k

  int threads_per_row() const { return 32 * num_warps / rows_per_cta; }
  int aten_vectors_per_load() const { return vector_bytes / 8; }
  static QkHeadLayerNormConfig from(const Variant& variant);
  static const TypedAxisTable<QkHeadLayerNormConfig>& table();

  // One launch over `rows` rows of each tensor, the same for the harness and
  // the runtime: a joint grid covers q's row groups then k's; a split grid is
  // launched once per tensor, each over its own groups.
  LaunchGeometry geometry(std::int64_t rows) const;
};

// The largest head_dim the family serves: aten holds a head row in its warp 0,
// at most 32 lanes of 4 elements.
inline constexpr int kQkMaxHeadDim = 128;

// A shape of this family, decoded: q and k are each (batch, tokens, heads, head_dim).
struct QkHeadProblem {
  int batch = 0;
  int tokens = 0;
  int heads = 0;
  int head_dim = 0;
  double eps = 0;

  std::int64_t rows() const { return static_cast<std::int64_t>(batch) * tokens * heads; }  // per tensor
  static QkHeadProblem of(const Shape& shape);
};

// A shape of this family from its parameters (for tests and the C ABI).
Shape qk_head_shape(std::string name, int batch, int tokens, int heads, int head_dim, double eps);

const KernelFamily& qk_head_layer_norm_family();

}  // namespace exactune
