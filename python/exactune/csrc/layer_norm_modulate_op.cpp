// torch.ops.exactune.layer_norm_modulate(x, scale, shift, eps) and its out=
// overload: F.layer_norm(x, (D,), eps=eps) * (1 + scale) + shift, bit for bit,
// by the runtime's layer_norm_modulate family (or its token-major one for a
// token-major x) behind the op's exactness gate; the eager chain for anything
// not served, on the CPU, and after a mismatch.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <optional>
#include <stdexcept>

#include "adaln_modulation.hpp"
#include "layer_norm_modulate_token_major/runtime/exactune_layer_norm_modulate_token_major.h"
#include "ops.hpp"

namespace exactune::torch_ops {
namespace {

Gate& modulate_gate() {
  static Gate gate;
  return gate;
}

thread_local bool last_entry_was_token_major = false;

// The variant the op's last fused launch on this thread ran, from the entry it called.
const char* last_modulate_variant() {
  return last_entry_was_token_major ? exactune_layer_norm_modulate_token_major_last_variant()
                                    : exactune_layer_norm_modulate_last_variant();
}

// x, scale and shift with their layouts, read once a call (the signature's too).
struct ModulateInputs {
  const at::Tensor &x, &scale, &shift;
  TensorLayout x_layout, scale_layout, shift_layout;
};

std::optional<at::Tensor> fused_layer_norm_modulate(const ModulateInputs& in, double eps, const at::Tensor* into) {
  const std::optional<ModulationRows> rows = modulation_rows(in.x_layout, in.scale_layout, in.shift_layout);
  if (!rows) return std::nullopt;
  at::Tensor out = output_into(in.x, into, {&in.x, &in.scale, &in.shift});
  exactune_layer_norm_modulate_args args =
      modulate_args(in.x_layout, in.scale_layout, in.shift_layout, *rows, eps, out.data_ptr());
  args.stream = stream_of(in.x);
  // A token-major x goes to the family that reads it in place; any other
  // layout to the contiguous one, which serves it only when contiguous.
  const bool token_major = torch_ops::token_major(in.x_layout, *rows);
  const int status =
      token_major ? exactune_layer_norm_modulate_token_major(&args) : exactune_layer_norm_modulate(&args);
  if (status == EXACTUNE_NOT_SERVED) return std::nullopt;
  if (status != EXACTUNE_OK) throw std::runtime_error(exactune_runtime_last_error());
  last_entry_was_token_major = token_major;
  return out;
}

// The gate's call for x, scale and shift, the fused kernel writing `into`
// where it can (the out= variant; its layout is then part of the signature).
at::Tensor gated_layer_norm_modulate(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift, double eps,
                                     const at::Tensor* into) {
  const c10::cuda::CUDAGuard device(x.device());
  const ModulateInputs in{x, scale, shift, layout_of(x), layout_of(scale), layout_of(shift)};
  Signature signature;
  for (const TensorLayout* t : {&in.x_layout, &in.scale_layout, &in.shift_layout}) signature.add(*t);
  if (into) signature.add(layout_of(*into));
  signature.add_real(eps);
  if (signature.overflowed) return eager_layer_norm_modulate(x, scale, shift, eps);
  return modulate_gate().call(
      signature, capturing, [&] { return fused_layer_norm_modulate(in, eps, into); },
      [&] { return eager_layer_norm_modulate(x, scale, shift, eps); },
      [](const at::Tensor& fused, const at::Tensor& eager) {
        return first_mismatch(fused, eager, "layer_norm_modulate", last_modulate_variant());
      },
      [](const std::string& why) { warn_closed("layer_norm_modulate", why); });
}

at::Tensor layer_norm_modulate_cuda(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift, double eps) {
  return gated_layer_norm_modulate(x, scale, shift, eps, nullptr);
}

at::Tensor& layer_norm_modulate_out_cuda(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                         double eps, at::Tensor& out) {
  check_out(out, x, "layer_norm_modulate's out");
  const at::Tensor result = gated_layer_norm_modulate(x, scale, shift, eps, &out);
  if (!result.is_same(out)) out.copy_(result);
  return out;
}

at::Tensor& layer_norm_modulate_out_cpu(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                        double eps, at::Tensor& out) {
  check_out(out, x, "layer_norm_modulate's out");
  return out.copy_(eager_layer_norm_modulate(x, scale, shift, eps));
}

at::Tensor& layer_norm_modulate_out_meta(const at::Tensor& x, const at::Tensor&, const at::Tensor&, double,
                                         at::Tensor& out) {
  check_out(out, x, "layer_norm_modulate's out");
  return out;
}

// The Meta kernels read sizes as SymInts (sym_size, sym_sizes, empty_symint): under torch.compile's dynamic
// shapes they see tensors of symbolic sizes, whose sizes() throws. A check of sizes the shape environment cannot
// decide becomes a guard (TORCH_SYM_CHECK); the broadcast of the chain the op replaces has made it already.
at::Tensor layer_norm_modulate_meta(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift, double) {
  TORCH_CHECK(x.dim() == 3, "exactune.layer_norm_modulate: x must be (batch, tokens, hidden)");
  const c10::SymInt hidden = x.sym_size(-1);
  TORCH_SYM_CHECK(scale.sym_size(-1).sym_eq(hidden) & shift.sym_size(-1).sym_eq(hidden),
                  "exactune.layer_norm_modulate: scale and shift rows must have x's hidden size");
  return at::empty_symint(x.sym_sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
}

at::Tensor layer_norm_modulate_direct(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                      double eps) {
  if (direct_serves(x, scale, shift)) return layer_norm_modulate_cuda(x, scale, shift, eps);
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("exactune::layer_norm_modulate", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, double)>();
  return op.call(x, scale, shift, eps);
}

at::Tensor layer_norm_modulate_out_direct(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                                          double eps, at::Tensor out) {
  if (direct_serves(x, scale, shift, out)) return layer_norm_modulate_out_cuda(x, scale, shift, eps, out);
  static const auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("exactune::layer_norm_modulate", "out")
          .typed<at::Tensor&(const at::Tensor&, const at::Tensor&, const at::Tensor&, double, at::Tensor&)>();
  return op.call(x, scale, shift, eps, out);
}

std::string last_variant_text() { return last_modulate_variant(); }

}  // namespace

OpGate layer_norm_modulate_gate() { return {"layer_norm_modulate", &modulate_gate, &last_variant_text}; }

void bind_layer_norm_modulate(pybind11::module_& module) {
  module.def("layer_norm_modulate", &layer_norm_modulate_direct, pybind11::call_guard<pybind11::gil_scoped_release>(),
             "exactune::layer_norm_modulate without the dispatcher, for eager calls");
  module.def("layer_norm_modulate_out", &layer_norm_modulate_out_direct,
             pybind11::call_guard<pybind11::gil_scoped_release>(), "exactune::layer_norm_modulate.out, likewise");
}

}  // namespace exactune::torch_ops

TORCH_LIBRARY_FRAGMENT(exactune, m) {
  m.def("layer_norm_modulate(Tensor x, Tensor scale, Tensor shift, float eps=1e-06) -> Tensor");
  m.def(
      "layer_norm_modulate.out(Tensor x, Tensor scale, Tensor shift, float eps=1e-06, *, Tensor(a!) out) -> "
      "Tensor(a!)");
}

TORCH_LIBRARY_IMPL(exactune, CUDA, m) {
  m.impl("layer_norm_modulate", &exactune::torch_ops::layer_norm_modulate_cuda);
  m.impl("layer_norm_modulate.out", &exactune::torch_ops::layer_norm_modulate_out_cuda);
}

TORCH_LIBRARY_IMPL(exactune, CPU, m) {
  m.impl("layer_norm_modulate", &exactune::torch_ops::eager_layer_norm_modulate);
  m.impl("layer_norm_modulate.out", &exactune::torch_ops::layer_norm_modulate_out_cpu);
}

TORCH_LIBRARY_IMPL(exactune, Meta, m) {
  m.impl("layer_norm_modulate", &exactune::torch_ops::layer_norm_modulate_meta);
  m.impl("layer_norm_modulate.out", &exactune::torch_ops::layer_norm_modulate_out_meta);
}
