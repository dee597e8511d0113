// The gated residual family's workload (gated_residual_layer_norm_modulate_workload.hpp):
// eager's residual into a layer_norm_modulate workload for the reference, the
// fused variant's launch with its two outputs, and the roofline's copies.
#include "gated_residual_layer_norm_modulate_workload.hpp"

#include <fmt/format.h>

#include <utility>

#include "gated_residual_layer_norm_modulate_family.hpp"

namespace exactune {

GatedResidualWorkload::GatedResidualWorkload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                             const GatedResidualInputs& inputs)
    : backend_(backend),
      support_(support),
      shape_(shape),
      problem_(ModulateProblem::of(shape)),
      eps_(inputs.modulate.eps),
      elements_(shape.rows() * problem_.hidden),
      chain_(backend, support, shape, inputs.modulate),
      x_(backend, padded_bytes(elements_, 2)),
      h_(backend, padded_bytes(elements_, 2)),
      product_(backend, padded_bytes(elements_, 2)),
      residual_(backend, padded_bytes(elements_, 2)),
      copy_x_(backend, padded_bytes(elements_, 2)),
      copy_h_(backend, padded_bytes(elements_, 2)),
      copy_modulation_(backend, padded_bytes(gated_residual_copy_elements(shape).at(2), 2)),
      gate_(chain_.operands().embedding + static_cast<DeviceAddress>(inputs.gate_offset) * 2) {
  backend.upload(x_.address(), inputs.modulate.x.data(), inputs.modulate.x.size() * 2);
  backend.upload(h_.address(), inputs.h.data(), inputs.h.size() * 2);
  // Until the reference writes r there, the chain's x holds nothing of it.
  const LayerNormModulateWorkload::Operands chain = chain_.operands();
  backend.fill(chain.x, kOutputPoisonByte, chain.x_bytes);
}

void GatedResidualWorkload::launch_reference() {
  const long long rows = shape_.rows();
  const Dim3 grid = elementwise_grid(elements_);
  const Dim3 block{kElementwiseThreads, 1, 1};
  launch_kernel(backend_, support_.get("eager_gate_product"), grid, block, gate_, h_.address(), product_.address(),
                rows, problem_.tokens, problem_.hidden, static_cast<long long>(problem_.modulation_stride));
  launch_kernel(backend_, support_.get("eager_residual_add"), grid, block, x_.address(), product_.address(),
                chain_.operands().x, static_cast<long long>(elements_));
  chain_.launch_reference();
}

void GatedResidualWorkload::poison_output() {
  chain_.poison_output();
  backend_.fill(residual_.address(), kOutputPoisonByte, residual_.bytes());
}

void GatedResidualWorkload::launch_variant(const LoadedKernel& kernel, const Variant& variant) {
  const LayerNormModulateConfig c = LayerNormModulateConfig::from(variant);
  const std::string why = fmt::format("variant {} loads {} bytes at a time", variant.name, c.vector_bytes);
  chain_.require_row_operands_aligned(c.vector_bytes, why);
  for (auto [address, what] :
       {std::pair{x_.address(), "x"}, {h_.address(), "h"}, {gate_, "gate"}, {residual_.address(), "the residual"}}) {
    require_aligned(address, c.vector_bytes, what, why);
  }
  const LayerNormModulateWorkload::Operands chain = chain_.operands();
  const std::int64_t rows = shape_.rows();
  const LaunchGeometry g =
      c.geometry(rows, [&](unsigned block_threads) { return backend_.resident_ctas(kernel, block_threads); });
  launch_kernel(backend_, kernel, g.grid, g.block, x_.address(), h_.address(), gate_, chain.scale, chain.shift,
                residual_.address(), chain.out, static_cast<int>(rows), problem_.tokens,
                static_cast<long long>(problem_.modulation_stride), eps_);
}

// The roofline: a copy of x and of h, the two tensors a fused kernel reads as
// it writes the two it returns, and of as many bytes of the embedding as half
// the gate, scale and shift rows it reads, in one launch: bytes_moved
// (gated_residual_copy_elements).
void GatedResidualWorkload::launch_copy() {
  const std::vector<std::int64_t> regions = gated_residual_copy_elements(shape_);
  const long long x_packets = static_cast<long long>(padded_bytes(regions.at(0), 2) / 16);
  const long long h_packets = static_cast<long long>(padded_bytes(regions.at(1), 2) / 16);
  const long long row_packets = static_cast<long long>(padded_bytes(regions.at(2), 2) / 16);
  launch_kernel(backend_, support_.get("copy_regions"), elementwise_grid(x_packets + h_packets + row_packets),
                Dim3{kElementwiseThreads, 1, 1}, x_.address(), copy_x_.address(), x_packets, h_.address(),
                copy_h_.address(), h_packets, chain_.operands().embedding, copy_modulation_.address(), row_packets);
}

std::vector<OutputRegion> GatedResidualWorkload::output_regions() const {
  OutputRegion y = chain_.output_regions().at(0);
  y.output_name = "y";
  return {OutputRegion{residual_.address(), chain_.operands().x, elements_, "r"}, y};
}

std::vector<std::uint16_t> GatedResidualWorkload::download(DeviceAddress at) {
  std::vector<std::uint16_t> host(static_cast<std::size_t>(elements_));
  backend_.download(host.data(), at, host.size() * 2);
  return host;
}

std::vector<std::uint16_t> GatedResidualWorkload::download_reference_output() {
  std::vector<std::uint16_t> both = download(chain_.operands().x);
  const std::vector<std::uint16_t> y = chain_.download_reference_output();
  both.insert(both.end(), y.begin(), y.end());
  return both;
}

std::vector<std::uint16_t> GatedResidualWorkload::download_output() {
  std::vector<std::uint16_t> both = download(residual_.address());
  const std::vector<std::uint16_t> y = chain_.download_output();
  both.insert(both.end(), y.begin(), y.end());
  return both;
}

std::int64_t GatedResidualWorkload::bytes_moved() const {
  return gated_residual_layer_norm_modulate_family().bytes_moved(shape_);
}

std::unique_ptr<Workload> make_gated_residual_workload(Backend& backend, const SupportKernels& support,
                                                       const Shape& shape, const InputCase& input_case,
                                                       std::uint64_t seed) {
  const GatedResidualInputs inputs =
      make_gated_residual_inputs(shape, find_modulate_case(ModulateProblem::of(shape).eps, input_case.name), seed);
  return std::make_unique<GatedResidualWorkload>(backend, support, shape, inputs);
}

}  // namespace exactune
