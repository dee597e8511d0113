// The token-major family's workload: x uploaded as (B, C, N), the contiguous
// family's workload for everything after aten's x.contiguous() (its x buffer
// receives the transpose copy and starts poisoned, so that a copy that moves
// nothing shows), and the launches of both kinds of variant.
#pragma once
#include <memory>

#include <exactune/workload.hpp>

#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_workload.hpp"

namespace exactune {

class TokenMajorWorkload : public Workload {
 public:
  TokenMajorWorkload(Backend& backend, const SupportKernels& support, const Shape& shape, const ModulateInputs& inputs);

  // The transpose copy, then the contiguous family's reference chain.
  void launch_reference() override;
  void poison_output() override { contiguous_.poison_output(); }
  void launch_variant(const LoadedKernel& kernel, const Variant& variant) override;
  void launch_copy() override { contiguous_.launch_copy(); }
  std::vector<OutputRegion> output_regions() const override { return contiguous_.output_regions(); }
  std::vector<std::uint16_t> download_reference_output() override { return contiguous_.download_reference_output(); }
  std::vector<std::uint16_t> download_output() override { return contiguous_.download_output(); }
  std::int64_t row_length() const override { return contiguous_.row_length(); }
  std::int64_t bytes_moved() const override { return contiguous_.bytes_moved(); }

 private:
  void launch_transpose();

  Backend& backend_;
  const SupportKernels& support_;
  ModulateProblem problem_;
  float eps_;
  LayerNormModulateWorkload contiguous_;
  DeviceBuffer token_major_x_;
};

// Each of `batch` (rows, columns) matrices of `values` transposed: the (B, C,
// N) memory of a token-major x from its logical (B, N, C) values
// (transpose_batches(logical, B, N, C)), as torch's y.permute(0, 2, 1) of a
// contiguous (B, C, N) y holds them, and back (transpose_batches(memory, B, C, N)).
std::vector<std::uint16_t> transpose_batches(const std::vector<std::uint16_t>& values, int batch, int rows,
                                             int columns);

std::unique_ptr<Workload> make_token_major_workload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                                    const InputCase& input_case, std::uint64_t seed);

}  // namespace exactune
