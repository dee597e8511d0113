#include "layer_norm_modulate_workload.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <exactune/error.hpp>

#include "layer_norm_modulate_family.hpp"

namespace exactune {
namespace {

constexpr unsigned kMaxElementwiseBlocks = 4096;

}  // namespace

Dim3 elementwise_grid(std::int64_t n) {
  return Dim3{static_cast<unsigned>(std::clamp<std::int64_t>((n + kElementwiseThreads - 1) / kElementwiseThreads, 1,
                                                             kMaxElementwiseBlocks)),
              1, 1};
}

LayerNormModulateWorkload::LayerNormModulateWorkload(Backend& backend, const SupportKernels& support,
                                                     const Shape& shape, const ModulateInputs& inputs,
                                                     std::size_t x_offset_bytes)
    : backend_(backend),
      support_(support),
      shape_(shape),
      problem_(ModulateProblem::of(shape)),
      eps_(inputs.eps),
      elements_(shape.rows() * problem_.hidden) {
  if (problem_.hidden % 4 != 0 || problem_.hidden <= 0 || problem_.hidden > 8192) {
    throw input_error(
        fmt::format("shape {}: hidden {} is not served (aten's vectorized LayerNorm needs hidden % 4 "
                    "== 0; exactune tunes hidden <= 8192)",
                    shape.name, problem_.hidden));
  }
  const std::int64_t b = problem_.batch;
  x_ = DeviceBuffer(backend, padded_bytes(elements_, 2) + 16);
  x_at_ = x_.address() + x_offset_bytes;
  embedding_ = DeviceBuffer(backend, padded_bytes(b * problem_.modulation_stride, 2));
  y_ = DeviceBuffer(backend, padded_bytes(elements_, 2));
  mean_ = DeviceBuffer(backend, padded_bytes(shape.rows(), 4));
  rstd_ = DeviceBuffer(backend, padded_bytes(shape.rows(), 4));
  t_ = DeviceBuffer(backend, padded_bytes(b * problem_.hidden, 2));
  u_ = DeviceBuffer(backend, padded_bytes(elements_, 2));
  reference_out_ = DeviceBuffer(backend, padded_bytes(elements_, 2));
  out_ = DeviceBuffer(backend, padded_bytes(elements_, 2));
  copy_dst_ = DeviceBuffer(backend, padded_bytes(elements_, 2));
  copy_modulation_dst_ = DeviceBuffer(backend, padded_bytes(modulate_copy_elements(shape).at(1), 2));
  backend.upload(x_at_, inputs.x.data(), inputs.x.size() * 2);
  backend.upload(embedding_.address(), inputs.embedding.data(), inputs.embedding.size() * 2);
  scale_ = embedding_.address() + inputs.scale_offset * 2;
  shift_ = embedding_.address() + inputs.shift_offset * 2;
}

void LayerNormModulateWorkload::launch_reference() {
  // aten's vectorized kernel needs 8-byte aligned X and Y; elsewhere it takes
  // another kernel whose bits differ, which this reference does not replicate.
  const std::string why = "aten would run its non-vectorized LayerNorm kernel, which this reference does not replicate";
  require_aligned(x_at_, 8, "x", why);
  require_aligned(y_.address(), 8, "the LayerNorm output", why);
  const std::int64_t rows = shape_.rows();
  launch_kernel(backend_, support_.get("aten_layer_norm"), Dim3{static_cast<unsigned>(rows), 1, 1}, Dim3{32, 4, 1},
                x_at_, y_.address(), mean_.address(), rstd_.address(), problem_.hidden, eps_);
  const std::int64_t bd = static_cast<std::int64_t>(problem_.batch) * problem_.hidden;
  launch_kernel(backend_, support_.get("eager_one_plus"), elementwise_grid(bd), Dim3{kElementwiseThreads, 1, 1}, scale_,
                t_.address(), problem_.batch, problem_.hidden, static_cast<long long>(problem_.modulation_stride));
  const Dim3 grid = elementwise_grid(elements_);
  launch_kernel(backend_, support_.get("eager_scale"), grid, Dim3{kElementwiseThreads, 1, 1}, y_.address(),
                t_.address(), u_.address(), static_cast<long long>(rows), problem_.tokens, problem_.hidden);
  launch_kernel(backend_, support_.get("eager_shift"), grid, Dim3{kElementwiseThreads, 1, 1}, u_.address(), shift_,
                reference_out_.address(), static_cast<long long>(rows), problem_.tokens, problem_.hidden,
                static_cast<long long>(problem_.modulation_stride));
}

void LayerNormModulateWorkload::poison_output() { backend_.fill(out_.address(), kOutputPoisonByte, out_.bytes()); }

void LayerNormModulateWorkload::launch_variant(const LoadedKernel& kernel, const Variant& variant) {
  const LayerNormModulateConfig c = LayerNormModulateConfig::from(variant);
  const std::string why = fmt::format("variant {} loads {} bytes at a time", variant.name, c.vector_bytes);
  require_aligned(x_at_, 8, "x", "aten's vectorized LayerNorm would not run on it");
  require_aligned(out_.address(), 8, "the output", "aten's vectorized LayerNorm would not run on it");
  require_aligned(x_at_, c.vector_bytes, "x", why);
  require_row_operands_aligned(c.vector_bytes, why);
  const std::int64_t rows = shape_.rows();
  const LaunchGeometry g =
      c.geometry(rows, [&](unsigned block_threads) { return backend_.resident_ctas(kernel, block_threads); });
  launch_kernel(backend_, kernel, g.grid, g.block, x_at_, scale_, shift_, out_.address(), static_cast<int>(rows),
                problem_.tokens, static_cast<long long>(problem_.modulation_stride), eps_);
}

void LayerNormModulateWorkload::require_row_operands_aligned(unsigned vector_bytes, const std::string& why) const {
  for (auto [address, what] : {std::pair{out_.address(), "the output"}, {scale_, "scale"}, {shift_, "shift"}}) {
    require_aligned(address, vector_bytes, what, why);
  }
  if ((problem_.modulation_stride * 2) % vector_bytes != 0) {
    throw input_error(fmt::format("the scale/shift row stride of {} elements breaks {}-byte alignment: {}",
                                  problem_.modulation_stride, vector_bytes, why));
  }
}

// The roofline: x, and as many bytes of the embedding as half the scale and shift rows (their reads), copied in
// one launch: bytes_moved (modulate_copy_elements).
void LayerNormModulateWorkload::launch_copy() {
  const std::vector<std::int64_t> regions = modulate_copy_elements(shape_);
  const long long x_packets = static_cast<long long>(padded_bytes(regions.at(0), 2) / 16);
  const long long row_packets = static_cast<long long>(padded_bytes(regions.at(1), 2) / 16);
  launch_kernel(backend_, support_.get("copy_regions"), elementwise_grid(x_packets + row_packets),
                Dim3{kElementwiseThreads, 1, 1}, x_at_, copy_dst_.address(), x_packets, embedding_.address(),
                copy_modulation_dst_.address(), row_packets, DeviceAddress{0}, DeviceAddress{0}, 0LL);
}

std::int64_t LayerNormModulateWorkload::bytes_moved() const { return layer_norm_modulate_family().bytes_moved(shape_); }

namespace {

template <class T>
std::vector<T> download(Backend& backend, const DeviceBuffer& buffer, std::int64_t count) {
  std::vector<T> host(static_cast<std::size_t>(count));
  backend.download(host.data(), buffer.address(), host.size() * sizeof(T));
  return host;
}

}  // namespace

std::vector<OutputRegion> LayerNormModulateWorkload::output_regions() const {
  return {OutputRegion{out_.address(), reference_out_.address(), elements_}};
}

std::vector<std::uint16_t> LayerNormModulateWorkload::download_reference_output() {
  return download<std::uint16_t>(backend_, reference_out_, elements_);
}
std::vector<std::uint16_t> LayerNormModulateWorkload::download_output() {
  return download<std::uint16_t>(backend_, out_, elements_);
}
std::vector<std::uint16_t> LayerNormModulateWorkload::download_layer_norm_output() {
  return download<std::uint16_t>(backend_, y_, elements_);
}
std::vector<float> LayerNormModulateWorkload::download_mean() {
  return download<float>(backend_, mean_, shape_.rows());
}
std::vector<float> LayerNormModulateWorkload::download_rstd() {
  return download<float>(backend_, rstd_, shape_.rows());
}

std::unique_ptr<Workload> make_layer_norm_modulate_workload(Backend& backend, const SupportKernels& support,
                                                            const Shape& shape, const InputCase& input_case,
                                                            std::uint64_t seed) {
  const ModulateInputs inputs =
      make_modulate_inputs(shape, find_modulate_case(ModulateProblem::of(shape).eps, input_case.name), seed);
  return std::make_unique<LayerNormModulateWorkload>(backend, support, shape, inputs);
}

}  // namespace exactune
