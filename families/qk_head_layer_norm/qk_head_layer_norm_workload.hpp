// The per-head q/k LayerNorm family's workload: the buffers of q and k and of
// their outputs, the reference (aten's LayerNorm run on q's rows, then on k's),
// the variant launches (one joint grid, or one launch per tensor) and the copy.
#pragma once
#include <memory>

#include <exactune/workload.hpp>

#include "qk_head_layer_norm_family.hpp"
#include "qk_head_layer_norm_inputs.hpp"

namespace exactune {

class QkHeadLayerNormWorkload : public Workload {
 public:
  QkHeadLayerNormWorkload(Backend& backend, const SupportKernels& support, const Shape& shape, const QkInputs& inputs);

  void launch_reference() override;
  void poison_output() override;
  void launch_variant(const LoadedKernel& kernel, const Variant& variant) override;
  void launch_copy() override;
  // q's output, then k's: the verifier compares both.
  std::vector<OutputRegion> output_regions() const override;
  std::vector<std::uint16_t> download_reference_output() override;
  std::vector<std::uint16_t> download_output() override;
  std::int64_t row_length() const override { return problem_.head_dim; }
  std::int64_t bytes_moved() const override;

  // The reference's statistics per row, q's rows then k's (for the cross-check
  // against torch.native_layer_norm).
  std::vector<float> download_mean();
  std::vector<float> download_rstd();

 private:
  Backend& backend_;
  const SupportKernels& support_;
  QkHeadProblem problem_;
  float eps_;
  std::int64_t rows_;          // per tensor
  std::int64_t elements_;      // per tensor
  std::size_t tensor_stride_;  // bytes from q to k in each buffer: q's bytes, rounded up to 16
  // Each buffer holds q's part, then k's at tensor_stride_: one copy launch
  // moves both tensors, and a 16-byte load finds k aligned.
  DeviceBuffer input_, reference_, mean_, rstd_, out_, copy_dst_;
};

std::unique_ptr<Workload> make_qk_head_layer_norm_workload(Backend& backend, const SupportKernels& support,
                                                           const Shape& shape, const InputCase& input_case,
                                                           std::uint64_t seed);

}  // namespace exactune
