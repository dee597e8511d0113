// The LayerNorm + modulate family's workload: buffers, reference chain (aten
// LayerNorm + three eager elementwise kernels), variant and copy launches.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <exactune/workload.hpp>

#include "layer_norm_modulate_family.hpp"
#include "layer_norm_modulate_inputs.hpp"

namespace exactune {

class LayerNormModulateWorkload : public Workload {
 public:
  // x_offset_bytes moves x inside its buffer: tests of aten's alignment rule set it
  // to 2 to see a misaligned x refused.
  LayerNormModulateWorkload(Backend& backend, const SupportKernels& support, const Shape& shape,
                            const ModulateInputs& inputs, std::size_t x_offset_bytes = 0);

  void launch_reference() override;
  void poison_output() override;
  void launch_variant(const LoadedKernel& kernel, const Variant& variant) override;
  void launch_copy() override;
  std::vector<OutputRegion> output_regions() const override;
  std::vector<std::uint16_t> download_reference_output() override;
  std::vector<std::uint16_t> download_output() override;
  std::int64_t row_length() const override { return problem_.hidden; }
  std::int64_t bytes_moved() const override;

  // Where the chain's operands lie, for a workload that builds on this one (the
  // token-major family writes x here with its copy and reads scale and shift;
  // the gated residual family writes its reference r here and reads its gate
  // from the embedding).
  struct Operands {
    DeviceAddress x, scale, shift, out;
    std::size_t x_bytes;
    DeviceAddress embedding;
  };
  // Throws exactune::input_error, naming the operand and `why`, unless the
  // output, scale, shift and their row stride take loads of `vector_bytes`.
  void require_row_operands_aligned(unsigned vector_bytes, const std::string& why) const;

  Operands operands() const {
    return {x_at_, scale_, shift_, out_.address(), static_cast<std::size_t>(elements_) * 2, embedding_.address()};
  }

  // The reference LayerNorm's statistics, for the cross-check against torch.
  std::vector<float> download_mean();
  std::vector<float> download_rstd();
  std::vector<std::uint16_t> download_layer_norm_output();

 private:
  Backend& backend_;
  const SupportKernels& support_;
  Shape shape_;
  ModulateProblem problem_;
  float eps_;
  std::int64_t elements_;
  DeviceBuffer x_, embedding_, y_, mean_, rstd_, t_, u_, reference_out_, out_, copy_dst_, copy_modulation_dst_;
  DeviceAddress x_at_, scale_, shift_;
};

// The grid-stride elementwise kernels of the reference chain and the roofline
// copy, of this family and of those that build on its workload: their block,
// a grid over n items, and the byte an output is poisoned with (0xffff is a
// NaN no kernel produces).
inline constexpr unsigned kElementwiseThreads = 256;
Dim3 elementwise_grid(std::int64_t n);
inline constexpr std::uint8_t kOutputPoisonByte = 0xff;

std::unique_ptr<Workload> make_layer_norm_modulate_workload(Backend& backend, const SupportKernels& support,
                                                            const Shape& shape, const InputCase& input_case,
                                                            std::uint64_t seed);

}  // namespace exactune
