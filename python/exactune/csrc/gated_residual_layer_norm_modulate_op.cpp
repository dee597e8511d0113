// torch.ops.exactune.gated_residual_layer_norm_modulate(x, h, gate, scale,
// shift, eps) -> (residual, y): the adaLN site after a DiT block's attention
// or MLP output h, bit for bit with eager's
//     residual = x + gate * h
//     y = F.layer_norm(residual, (D,), eps=eps) * (1 + scale) + shift
// by the runtime's gated_residual_layer_norm_modulate family behind the op's
// exactness gate; the eager chain for anything not served, on the CPU, and
// after a mismatch. gate, scale and shift are rows as layer_norm_modulate
// takes scale and shift (per batch element or per token); the kernel reads
// the three with one row stride (rows of one adaLN embedding).
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <array>
#include <optional>
#include <stdexcept>

#include "adaln_modulation.hpp"
#include "gated_residual_layer_norm_modulate/runtime/exactune_gated_residual_layer_norm_modulate.h"
#include "ops.hpp"

namespace exactune::torch_ops {
namespace {

Gate& gated_residual_gate() {
  static Gate gate;
  return gate;
}

TensorPair eager_gated_residual_layer_norm_modulate(const at::Tensor& x, const at::Tensor& h, const at::Tensor& gate,
                                                    const at::Tensor& scale, const at::Tensor& shift, double eps) {
  // Two eager ops, each rounding to bf16: the product, then the sum.
  const at::Tensor residual = x + per_batch_row(gate) * h;
  return {residual, eager_layer_norm_modulate(residual, scale, shift, eps)};
}

// The layouts of x, h, gate, scale and shift, read once a call (the signature's too).
using GatedLayouts = std::array<TensorLayout, 5>;

std::optional<TensorPair> fused_gated_residual_layer_norm_modulate(const at::Tensor& x, const GatedLayouts& layouts,
                                                                   double eps) {
  const auto& [x_layout, h_layout, gate_layout, scale_layout, shift_layout] = layouts;
  if (!x_layout.contiguous() || h_layout.ndim != 3 || !h_layout.contiguous() || !h_layout.bf16 ||
      h_layout.device != x_layout.device) {
    return std::nullopt;
  }
  for (int d = 0; d < 3; ++d) {
    if (h_layout.shape[d] != x_layout.shape[d]) return std::nullopt;
  }
  const std::optional<ModulationRows> rows = modulation_rows(x_layout, scale_layout, shift_layout);
  if (!rows) return std::nullopt;
  const std::optional<std::int64_t> gate_row_stride = modulation_row_stride(gate_layout, x_layout, rows->per_token);
  if (!gate_row_stride) return std::nullopt;
  at::Tensor residual = new_output(x);
  at::Tensor y = new_output(x);
  exactune_gated_residual_layer_norm_modulate_args args{};
  args.modulate = modulate_args(x_layout, scale_layout, shift_layout, *rows, eps, y.data_ptr());
  args.modulate.stream = stream_of(x);
  args.h = h_layout.data;
  args.gate = gate_layout.data;
  args.gate_row_stride = *gate_row_stride;
  args.residual = residual.data_ptr();
  const int status = exactune_gated_residual_layer_norm_modulate(&args);
  if (status == EXACTUNE_NOT_SERVED) return std::nullopt;
  if (status != EXACTUNE_OK) throw std::runtime_error(exactune_runtime_last_error());
  return TensorPair{residual, y};
}

TensorPair gated_residual_layer_norm_modulate_cuda(const at::Tensor& x, const at::Tensor& h, const at::Tensor& gate,
                                                   const at::Tensor& scale, const at::Tensor& shift, double eps) {
  const c10::cuda::CUDAGuard device(x.device());
  const GatedLayouts layouts{layout_of(x), layout_of(h), layout_of(gate), layout_of(scale), layout_of(shift)};
  Signature signature;
  for (const TensorLayout& t : layouts) signature.add(t);
  signature.add_real(eps);
  if (signature.overflowed) return eager_gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps);
  return gated_residual_gate().call(
      signature, capturing, [&] { return fused_gated_residual_layer_norm_modulate(x, layouts, eps); },
      [&] { return eager_gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps); },
      [](const TensorPair& fused, const TensorPair& eager) {
        return first_mismatch_of_pair(fused, eager, "gated_residual_layer_norm_modulate (residual)",
                                      "gated_residual_layer_norm_modulate (y)",
                                      exactune_gated_residual_layer_norm_modulate_last_variant());
      },
      [](const std::string& why) { warn_closed("gated_residual_layer_norm_modulate", why); });
}

TensorPair gated_residual_layer_norm_modulate_meta(const at::Tensor& x, const at::Tensor& h, const at::Tensor& gate,
                                                   const at::Tensor& scale, const at::Tensor& shift, double) {
  // Sizes as SymInts, as layer_norm_modulate's Meta kernel reads them (symbolic under dynamic shapes).
  TORCH_CHECK(x.dim() == 3 && h.dim() == 3,
              "exactune.gated_residual_layer_norm_modulate: x and h must be (batch, tokens, hidden) alike");
  TORCH_SYM_CHECK(c10::sym_equals(h.sym_sizes(), x.sym_sizes()),
                  "exactune.gated_residual_layer_norm_modulate: x and h must be (batch, tokens, hidden) alike");
  const c10::SymInt hidden = x.sym_size(-1);
  TORCH_SYM_CHECK(
      gate.sym_size(-1).sym_eq(hidden) & scale.sym_size(-1).sym_eq(hidden) & shift.sym_size(-1).sym_eq(hidden),
      "exactune.gated_residual_layer_norm_modulate: gate, scale and shift rows must have x's hidden size");
  const auto options = x.options().memory_format(at::MemoryFormat::Contiguous);
  return {at::empty_symint(x.sym_sizes(), options), at::empty_symint(x.sym_sizes(), options)};
}

TensorPair gated_residual_layer_norm_modulate_direct(const at::Tensor& x, const at::Tensor& h, const at::Tensor& gate,
                                                     const at::Tensor& scale, const at::Tensor& shift, double eps) {
  if (direct_serves(x, h, gate, scale, shift)) {
    return gated_residual_layer_norm_modulate_cuda(x, h, gate, scale, shift, eps);
  }
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("exactune::gated_residual_layer_norm_modulate", "")
                             .typed<TensorPair(const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                               const at::Tensor&, const at::Tensor&, double)>();
  return op.call(x, h, gate, scale, shift, eps);
}

std::string last_variant_text() { return exactune_gated_residual_layer_norm_modulate_last_variant(); }

}  // namespace

OpGate gated_residual_layer_norm_modulate_gate() {
  return {"gated_residual_layer_norm_modulate", &gated_residual_gate, &last_variant_text};
}

void bind_gated_residual_layer_norm_modulate(pybind11::module_& module) {
  module.def("gated_residual_layer_norm_modulate", &gated_residual_layer_norm_modulate_direct,
             pybind11::call_guard<pybind11::gil_scoped_release>(),
             "exactune::gated_residual_layer_norm_modulate without the dispatcher, for eager calls");
}

}  // namespace exactune::torch_ops

TORCH_LIBRARY_FRAGMENT(exactune, m) {
  m.def(
      "gated_residual_layer_norm_modulate(Tensor x, Tensor h, Tensor gate, Tensor scale, Tensor shift, "
      "float eps=1e-06) -> (Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(exactune, CUDA, m) {
  m.impl("gated_residual_layer_norm_modulate", &exactune::torch_ops::gated_residual_layer_norm_modulate_cuda);
}

TORCH_LIBRARY_IMPL(exactune, CPU, m) {
  m.impl("gated_residual_layer_norm_modulate", &exactune::torch_ops::eager_gated_residual_layer_norm_modulate);
}

TORCH_LIBRARY_IMPL(exactune, Meta, m) {
  m.impl("gated_residual_layer_norm_modulate", &exactune::torch_ops::gated_residual_layer_norm_modulate_meta);
}
