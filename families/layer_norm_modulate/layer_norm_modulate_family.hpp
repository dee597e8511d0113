// The first kernel family: LayerNorm (no affine) + adaLN modulate in bf16,
//   out = LN(x) * (1 + scale) + shift,
// bit-exact with PyTorch 2.11's eager chain (spec.md beside this file).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <exactune/axis_table.hpp>
#include <exactune/backend.hpp>
#include <exactune/family.hpp>
#include <exactune/shapes.hpp>

namespace exactune {

// The variant parameters of this family, decoded from a Variant by its axis
// table (layer_norm_modulate_axes.cpp).
struct LayerNormModulateConfig {
  int num_warps = 4;
  int rows_per_cta = 1;
  bool peeled_tail = false;       // else predicated
  int vector_bytes = 8;           // 8 or 16
  bool row_in_registers = false;  // else pass 2 re-reads x
  bool folded_counts = false;     // else 1/count computed from the data's counts
  bool early_modulation = false;  // scale/shift loaded with x in pass 1, else in pass 2
  bool packed_bf16x2 = false;     // the chain's bf16 steps as bf16x2 instructions, else float32
  bool persistent = false;        // a grid of the CTAs the GPU holds at once, looping over rows; else one CTA per group

  int threads_per_row() const { return 32 * num_warps / rows_per_cta; }
  int aten_vectors_per_load() const { return vector_bytes / 8; }
  static LayerNormModulateConfig from(const Variant& variant);
  // The variant of these parameters, named as the family names it.
  Variant variant() const;
  static const TypedAxisTable<LayerNormModulateConfig>& table();
  // The table's rows and its one part, compiling `kernel` of `main_file` with
  // the axes as its template arguments: for a family that runs the fused
  // template through another row source, with this family's axes and names.
  static std::vector<TypedAxisRow<LayerNormModulateConfig>> axis_rows();
  static AxisPart axis_part(std::string main_file, std::string kernel);
  // Why these parameters cannot serve rows of `hidden`; empty when they can.
  std::string exclusion(int hidden) const;

  // The launch over `rows` rows, the same for the harness and the runtime:
  // one CTA per group of rows, or for a persistent grid as many CTAs as the
  // GPU holds at once (resident_ctas(block_threads)), if fewer.
  LaunchGeometry geometry(std::int64_t rows, const std::function<unsigned(unsigned)>& resident_ctas) const;
};

// A shape of this family, decoded: x is (batch, tokens, hidden) bf16; scale and
// shift are rows of a (batch, modulation_rows, hidden) embedding, batch b's row
// starting at b * modulation_stride elements.
struct ModulateProblem {
  int batch = 0;
  int tokens = 0;
  int hidden = 0;
  double eps = 0;
  std::int64_t modulation_stride = 0;

  static ModulateProblem of(const Shape& shape);
};

// The roofline copy of a shape, as the elements of each region it copies: x,
// then half as many elements as the scale and shift rows the kernel reads (a
// row of each per batch element). A copy reads and writes what it moves where
// the kernel only reads those rows, so the copy moves the kernel's
// bytes_moved: 4 bytes an element (test_shapes.cpp holds the two equal).
std::vector<std::int64_t> modulate_copy_elements(const Shape& shape);

// A shape of this family from its parameters (for tests and the C ABI): it
// holds every parameter, its size and its rows.
Shape modulate_shape(std::string name, int batch, int tokens, int hidden, double eps, int modulation_rows = 6);

const KernelFamily& layer_norm_modulate_family();

}  // namespace exactune
