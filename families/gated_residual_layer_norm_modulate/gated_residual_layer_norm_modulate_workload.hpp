// The gated residual family's workload. Its reference is eager's chain: the
// gate product and the residual add (kernels/eager_gated_residual.cuh) write r
// into the x of a layer_norm_modulate workload, whose own reference then runs
// the LayerNorm and modulate chain on r. A variant writes two outputs, r and
// y, each compared with its reference (output_regions: "r", then "y").
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include <exactune/workload.hpp>

#include "gated_residual_layer_norm_modulate_inputs.hpp"
#include "layer_norm_modulate/layer_norm_modulate_family.hpp"
#include "layer_norm_modulate/layer_norm_modulate_workload.hpp"

namespace exactune {

class GatedResidualWorkload : public Workload {
 public:
  GatedResidualWorkload(Backend& backend, const SupportKernels& support, const Shape& shape,
                        const GatedResidualInputs& inputs);

  void launch_reference() override;
  void poison_output() override;
  void launch_variant(const LoadedKernel& kernel, const Variant& variant) override;
  void launch_copy() override;
  std::vector<OutputRegion> output_regions() const override;
  // r, then y.
  std::vector<std::uint16_t> download_reference_output() override;
  std::vector<std::uint16_t> download_output() override;
  std::int64_t row_length() const override { return problem_.hidden; }
  std::int64_t bytes_moved() const override;

 private:
  std::vector<std::uint16_t> download(DeviceAddress at);

  Backend& backend_;
  const SupportKernels& support_;
  Shape shape_;
  ModulateProblem problem_;
  float eps_;
  std::int64_t elements_;
  LayerNormModulateWorkload chain_;  // its x holds the reference's r; its output is y
  DeviceBuffer x_, h_, product_, residual_, copy_x_, copy_h_, copy_modulation_;
  DeviceAddress gate_;
};

std::unique_ptr<Workload> make_gated_residual_workload(Backend& backend, const SupportKernels& support,
                                                       const Shape& shape, const InputCase& input_case,
                                                       std::uint64_t seed);

}  // namespace exactune
