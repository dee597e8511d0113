// The first kernel family: LayerNorm (no affine) + adaLN modulate in bf16,
//   out = LN(x) * (1 + scale) + shift,
// bit-exact with PyTorch 2.11's eager chain (shared/spec/aten-layernorm-bf16.md).
#pragma once
#include "family.hpp"

namespace exactune {

// The variant parameters of this family, decoded from a Variant.
struct LayerNormModulateConfig {
  int num_warps = 4;
  int rows_per_cta = 1;
  bool peeled_tail = false;  // else predicated
  int vector_bytes = 8;      // 8 or 16
  bool row_in_registers = false;  // else pass 2 re-reads x
  bool folded_counts = false;     // else 1/count computed from the data's counts
  bool early_modulation = false;  // scale/shift loaded with x in pass 1, else in pass 2
  bool packed_bf16x2 = false;     // the chain's bf16 steps as bf16x2 instructions, else float32
  bool persistent = false;        // a grid of the CTAs the GPU holds at once, looping over rows; else one CTA per group

  int threads_per_row() const { return 32 * num_warps / rows_per_cta; }
  int aten_vectors_per_load() const { return vector_bytes / 8; }
  static LayerNormModulateConfig from(const Variant& variant);
};

const KernelFamily& layer_norm_modulate_family();

}  // namespace exactune
