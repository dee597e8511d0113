#include "qk_head_layer_norm_workload.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <exactune/error.hpp>

namespace exactune {
namespace {

constexpr unsigned kCopyThreads = 256;
constexpr unsigned kMaxCopyBlocks = 4096;
constexpr std::uint8_t kPoisonByte = 0xff;  // 0xffff is a NaN no kernel produces

template <class T>
std::vector<T> download_both(Backend& backend, const DeviceBuffer& buffer, std::int64_t per_tensor,
                             std::size_t second_at_bytes) {
  std::vector<T> host(static_cast<std::size_t>(2 * per_tensor));
  const std::size_t bytes = static_cast<std::size_t>(per_tensor) * sizeof(T);
  backend.download(host.data(), buffer.address(), bytes);
  backend.download(host.data() + per_tensor, buffer.address() + second_at_bytes, bytes);
  return host;
}

}  // namespace

QkHeadLayerNormWorkload::QkHeadLayerNormWorkload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                                 const QkInputs& inputs)
    : backend_(backend),
      support_(support),
      problem_(QkHeadProblem::of(shape)),
      eps_(inputs.eps),
      rows_(problem_.rows()),
      elements_(rows_ * problem_.head_dim),
      tensor_stride_(padded_bytes(elements_, 2)) {
  if (problem_.head_dim % 4 != 0 || problem_.head_dim < 4 || problem_.head_dim > kQkMaxHeadDim) {
    throw input_error(
        fmt::format("shape {}: head_dim {} is not served (aten's vectorized LayerNorm needs "
                    "head_dim % 4 == 0; this family serves head_dim <= {})",
                    shape.name, problem_.head_dim, kQkMaxHeadDim));
  }
  if (inputs.q.size() != static_cast<std::size_t>(elements_) || inputs.k.size() != inputs.q.size()) {
    throw error(fmt::format("shape {}: q and k need {} elements each (got {} and {})", shape.name, elements_,
                            inputs.q.size(), inputs.k.size()));
  }
  input_ = DeviceBuffer(backend, 2 * tensor_stride_);
  reference_ = DeviceBuffer(backend, 2 * tensor_stride_);
  out_ = DeviceBuffer(backend, 2 * tensor_stride_);
  copy_dst_ = DeviceBuffer(backend, 2 * tensor_stride_);
  mean_ = DeviceBuffer(backend, 2 * padded_bytes(rows_, 4));
  rstd_ = DeviceBuffer(backend, 2 * padded_bytes(rows_, 4));
  backend.fill(input_.address(), 0, input_.bytes());  // the gap between q and k: the copy reads it
  backend.upload(input_.address(), inputs.q.data(), inputs.q.size() * 2);
  backend.upload(input_.address() + tensor_stride_, inputs.k.data(), inputs.k.size() * 2);
}

void QkHeadLayerNormWorkload::launch_reference() {
  // aten's vectorized kernel needs 8-byte aligned X and Y; elsewhere it takes
  // another kernel whose bits differ, which this reference does not replicate.
  const std::string why = "aten would run its non-vectorized LayerNorm kernel, which this reference does not replicate";
  const std::size_t stats_stride = padded_bytes(rows_, 4);
  for (int tensor = 0; tensor < 2; ++tensor) {
    const DeviceAddress x = input_.address() + tensor * tensor_stride_;
    const DeviceAddress y = reference_.address() + tensor * tensor_stride_;
    require_aligned(x, 8, tensor == 0 ? "q" : "k", why);
    require_aligned(y, 8, tensor == 0 ? "the reference q output" : "the reference k output", why);
    launch_kernel(backend_, support_.get("aten_layer_norm"), Dim3{static_cast<unsigned>(rows_), 1, 1}, Dim3{32, 4, 1},
                  x, y, mean_.address() + tensor * stats_stride, rstd_.address() + tensor * stats_stride,
                  problem_.head_dim, eps_);
  }
}

void QkHeadLayerNormWorkload::poison_output() { backend_.fill(out_.address(), kPoisonByte, out_.bytes()); }

void QkHeadLayerNormWorkload::launch_variant(const LoadedKernel& kernel, const Variant& variant) {
  const QkHeadLayerNormConfig c = QkHeadLayerNormConfig::from(variant);
  const DeviceAddress q = input_.address(), k = input_.address() + tensor_stride_;
  const DeviceAddress q_out = out_.address(), k_out = out_.address() + tensor_stride_;
  const std::string why = fmt::format("variant {} loads {} bytes at a time", variant.name, c.vector_bytes);
  for (auto [address, what] : {std::pair{q, "q"}, {k, "k"}, {q_out, "the q output"}, {k_out, "the k output"}}) {
    require_aligned(address, 8, what, "aten's vectorized LayerNorm would not run on it");
    require_aligned(address, c.vector_bytes, what, why);
  }
  const int rows = static_cast<int>(rows_);
  const LaunchGeometry g = c.geometry(rows_);
  if (c.split_grid) {
    // The kernel serves its first tensor only: q's launch, then k's in q's slots.
    const DeviceAddress none = 0;
    launch_kernel(backend_, kernel, g.grid, g.block, q, none, q_out, none, rows, 0, eps_);
    launch_kernel(backend_, kernel, g.grid, g.block, k, none, k_out, none, rows, 0, eps_);
  } else {
    launch_kernel(backend_, kernel, g.grid, g.block, q, k, q_out, k_out, rows, rows, eps_);
  }
}

void QkHeadLayerNormWorkload::launch_copy() {
  const long long packets = static_cast<long long>(2 * tensor_stride_ / 16);
  const unsigned blocks =
      static_cast<unsigned>(std::clamp<long long>((packets + kCopyThreads - 1) / kCopyThreads, 1, kMaxCopyBlocks));
  launch_kernel(backend_, support_.get("copy_bytes"), Dim3{blocks, 1, 1}, Dim3{kCopyThreads, 1, 1}, input_.address(),
                copy_dst_.address(), packets);
}

// Two tensors, each read once and written once.
std::int64_t QkHeadLayerNormWorkload::bytes_moved() const { return 2 * 2 * elements_ * 2; }

// Two regions: k lies tensor_stride_ bytes after q, past a gap neither writes.
std::vector<OutputRegion> QkHeadLayerNormWorkload::output_regions() const {
  return {OutputRegion{out_.address(), reference_.address(), elements_},
          OutputRegion{out_.address() + tensor_stride_, reference_.address() + tensor_stride_, elements_}};
}

std::vector<std::uint16_t> QkHeadLayerNormWorkload::download_reference_output() {
  return download_both<std::uint16_t>(backend_, reference_, elements_, tensor_stride_);
}
std::vector<std::uint16_t> QkHeadLayerNormWorkload::download_output() {
  return download_both<std::uint16_t>(backend_, out_, elements_, tensor_stride_);
}
std::vector<float> QkHeadLayerNormWorkload::download_mean() {
  return download_both<float>(backend_, mean_, rows_, padded_bytes(rows_, 4));
}
std::vector<float> QkHeadLayerNormWorkload::download_rstd() {
  return download_both<float>(backend_, rstd_, rows_, padded_bytes(rows_, 4));
}

std::unique_ptr<Workload> make_qk_head_layer_norm_workload(Backend& backend, const SupportKernels& support,
                                                           const Shape& shape, const InputCase& input_case,
                                                           std::uint64_t seed) {
  const QkInputs inputs = make_qk_inputs(shape, find_qk_case(QkHeadProblem::of(shape).eps, input_case.name), seed);
  return std::make_unique<QkHeadLayerNormWorkload>(backend, support, shape, inputs);
}

}  // namespace exactune
