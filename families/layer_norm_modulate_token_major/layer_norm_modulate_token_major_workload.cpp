#include "layer_norm_modulate_token_major_workload.hpp"

#include <fmt/format.h>

#include <exactune/error.hpp>

#include "layer_norm_modulate_token_major_family.hpp"

namespace exactune {
namespace {

constexpr unsigned kTransposeTile = 32;  // transpose_tokens.cuh's tile
constexpr unsigned kTransposeRowsPerPass = 8;
constexpr std::uint8_t kPoisonByte = 0xff;  // 0xffff is a NaN no copy of real inputs holds

}  // namespace

std::vector<std::uint16_t> transpose_batches(const std::vector<std::uint16_t>& values, int batch, int rows,
                                             int columns) {
  std::vector<std::uint16_t> transposed(values.size());
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t base = b * rows * columns;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t c = 0; c < columns; ++c) transposed[base + c * rows + r] = values[base + r * columns + c];
    }
  }
  return transposed;
}

TokenMajorWorkload::TokenMajorWorkload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                       const ModulateInputs& inputs)
    : backend_(backend),
      support_(support),
      problem_(ModulateProblem::of(shape)),
      eps_(inputs.eps),
      contiguous_(backend, support, shape, inputs),
      token_major_x_(backend, padded_bytes(static_cast<std::int64_t>(inputs.x.size()), 2)) {
  const std::vector<std::uint16_t> memory =
      transpose_batches(inputs.x, problem_.batch, problem_.tokens, problem_.hidden);
  backend.upload(token_major_x_.address(), memory.data(), memory.size() * 2);
  const LayerNormModulateWorkload::Operands operands = contiguous_.operands();
  backend.fill(operands.x, kPoisonByte, operands.x_bytes);
}

void TokenMajorWorkload::launch_transpose() {
  const Dim3 grid{(static_cast<unsigned>(problem_.tokens) + kTransposeTile - 1) / kTransposeTile,
                  (static_cast<unsigned>(problem_.hidden) + kTransposeTile - 1) / kTransposeTile,
                  static_cast<unsigned>(problem_.batch)};
  launch_kernel(backend_, support_.get("transpose_tokens"), grid, Dim3{kTransposeTile, kTransposeRowsPerPass, 1},
                token_major_x_.address(), contiguous_.operands().x, problem_.hidden, problem_.tokens);
}

void TokenMajorWorkload::launch_reference() {
  launch_transpose();
  contiguous_.launch_reference();
}

void TokenMajorWorkload::launch_variant(const LoadedKernel& kernel, const Variant& variant) {
  const TokenMajorConfig c = TokenMajorConfig::from(variant);
  if (!c.in_place()) {
    launch_transpose();
    contiguous_.launch_variant(kernel, c.contiguous_variant());
    return;
  }
  const LayerNormModulateWorkload::Operands operands = contiguous_.operands();
  contiguous_.require_row_operands_aligned(
      c.vector_bytes, fmt::format("variant {} loads {} bytes at a time", variant.name, c.vector_bytes));
  // x needs no alignment: a tile whose runs of tokens are misaligned is read a token at a time.
  const LaunchGeometry geometry = c.tile_geometry(problem_.batch, problem_.tokens, problem_.hidden);
  DeviceAddress x = token_major_x_.address(), scale = operands.scale, shift = operands.shift, out = operands.out;
  int tokens = problem_.tokens;
  long long modulation_stride = problem_.modulation_stride;
  float eps = eps_;
  void* args[] = {&x, &scale, &shift, &out, &tokens, &modulation_stride, &eps};
  backend_.launch(kernel, geometry, args);
}

std::unique_ptr<Workload> make_token_major_workload(Backend& backend, const SupportKernels& support, const Shape& shape,
                                                    const InputCase& input_case, std::uint64_t seed) {
  const ModulateInputs inputs =
      make_modulate_inputs(shape, find_modulate_case(ModulateProblem::of(shape).eps, input_case.name), seed);
  return std::make_unique<TokenMajorWorkload>(backend, support, shape, inputs);
}

}  // namespace exactune
