// torch.ops.exactune.qk_head_layer_norm(q, k, eps) and its out= overload:
// (F.layer_norm(q, (Dh,), eps=eps), F.layer_norm(k, (Dh,), eps=eps)), bit for
// bit, by the runtime's qk_head_layer_norm family behind the op's exactness
// gate; the eager chain for anything not served, on the CPU, and after a mismatch.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <optional>
#include <stdexcept>

#include "ops.hpp"
#include "qk_head_layer_norm/runtime/exactune_qk_head_layer_norm.h"

namespace exactune::torch_ops {
namespace {

Gate& qk_gate() {
  static Gate gate;
  return gate;
}

TensorPair eager_qk_head_layer_norm(const at::Tensor& q, const at::Tensor& k, double eps) {
  return {at::layer_norm(q, {q.size(-1)}, std::nullopt, std::nullopt, eps),
          at::layer_norm(k, {k.size(-1)}, std::nullopt, std::nullopt, eps)};
}

std::optional<TensorPair> fused_qk_head_layer_norm(const at::Tensor& q, const at::Tensor& k, double eps,
                                                   const at::Tensor* q_into, const at::Tensor* k_into) {
  if (q.dim() != 4 || q.sizes() != k.sizes() || q.scalar_type() != at::kBFloat16 || k.scalar_type() != at::kBFloat16 ||
      k.device() != q.device()) {
    return std::nullopt;
  }
  at::Tensor q_out = output_into(q, q_into, {&q, &k});
  at::Tensor k_out = output_into(k, k_into, {&q, &k, &q_out});
  exactune_qk_head_layer_norm_args args{};
  args.device = q.device().index();
  args.stream = stream_of(q);
  args.q = q.data_ptr();
  args.k = k.data_ptr();
  args.q_out = q_out.data_ptr();
  args.k_out = k_out.data_ptr();
  args.batch = q.size(0);
  args.tokens = q.size(1);
  args.heads = q.size(2);
  args.head_dim = q.size(3);
  for (int d = 0; d < 4; ++d) {
    args.q_strides[d] = q.stride(d);
    args.k_strides[d] = k.stride(d);
  }
  args.eps = eps;
  const int status = exactune_qk_head_layer_norm(&args);
  if (status == EXACTUNE_NOT_SERVED) return std::nullopt;
  if (status != EXACTUNE_OK) throw std::runtime_error(exactune_runtime_last_error());
  return TensorPair{q_out, k_out};
}

TensorPair gated_qk_head_layer_norm(const at::Tensor& q, const at::Tensor& k, double eps, const at::Tensor* q_into,
                                    const at::Tensor* k_into) {
  const c10::cuda::CUDAGuard device(q.device());
  Signature signature;
  for (const at::Tensor* t : {&q, &k, q_into, k_into}) {
    if (t) signature.add(layout_of(*t));
  }
  signature.add_real(eps);
  if (signature.overflowed) return eager_qk_head_layer_norm(q, k, eps);
  return qk_gate().call(
      signature, capturing, [&] { return fused_qk_head_layer_norm(q, k, eps, q_into, k_into); },
      [&] { return eager_qk_head_layer_norm(q, k, eps); },
      [](const TensorPair& fused, const TensorPair& eager) {
        return first_mismatch_of_pair(fused, eager, "qk_head_layer_norm (q)", "qk_head_layer_norm (k)",
                                      exactune_qk_head_layer_norm_last_variant());
      },
      [](const std::string& why) { warn_closed("qk_head_layer_norm", why); });
}

TensorPair qk_head_layer_norm_cuda(const at::Tensor& q, const at::Tensor& k, double eps) {
  return gated_qk_head_layer_norm(q, k, eps, nullptr, nullptr);
}

using TensorRefPair = std::tuple<at::Tensor&, at::Tensor&>;

TensorRefPair qk_head_layer_norm_out_cuda(const at::Tensor& q, const at::Tensor& k, double eps, at::Tensor& q_out,
                                          at::Tensor& k_out) {
  check_out(q_out, q, "qk_head_layer_norm's q_out");
  check_out(k_out, k, "qk_head_layer_norm's k_out");
  const auto [q_result, k_result] = gated_qk_head_layer_norm(q, k, eps, &q_out, &k_out);
  if (!q_result.is_same(q_out)) q_out.copy_(q_result);
  if (!k_result.is_same(k_out)) k_out.copy_(k_result);
  return {q_out, k_out};
}

TensorRefPair qk_head_layer_norm_out_cpu(const at::Tensor& q, const at::Tensor& k, double eps, at::Tensor& q_out,
                                         at::Tensor& k_out) {
  check_out(q_out, q, "qk_head_layer_norm's q_out");
  check_out(k_out, k, "qk_head_layer_norm's k_out");
  const auto [q_result, k_result] = eager_qk_head_layer_norm(q, k, eps);
  q_out.copy_(q_result);
  k_out.copy_(k_result);
  return {q_out, k_out};
}

TensorRefPair qk_head_layer_norm_out_meta(const at::Tensor& q, const at::Tensor& k, double, at::Tensor& q_out,
                                          at::Tensor& k_out) {
  check_out(q_out, q, "qk_head_layer_norm's q_out");
  check_out(k_out, k, "qk_head_layer_norm's k_out");
  return {q_out, k_out};
}

// Sizes as SymInts: symbolic under torch.compile's dynamic shapes.
TensorPair qk_head_layer_norm_meta(const at::Tensor& q, const at::Tensor& k, double) {
  return {at::empty_symint(q.sym_sizes(), q.options()), at::empty_symint(k.sym_sizes(), k.options())};
}

TensorPair qk_head_layer_norm_direct(const at::Tensor& q, const at::Tensor& k, double eps) {
  if (direct_serves(q, k)) return qk_head_layer_norm_cuda(q, k, eps);
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("exactune::qk_head_layer_norm", "")
                             .typed<TensorPair(const at::Tensor&, const at::Tensor&, double)>();
  return op.call(q, k, eps);
}

TensorPair qk_head_layer_norm_out_direct(const at::Tensor& q, const at::Tensor& k, double eps, at::Tensor q_out,
                                         at::Tensor k_out) {
  if (direct_serves(q, k, q_out, k_out)) {
    qk_head_layer_norm_out_cuda(q, k, eps, q_out, k_out);
    return {q_out, k_out};
  }
  static const auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("exactune::qk_head_layer_norm", "out")
          .typed<TensorRefPair(const at::Tensor&, const at::Tensor&, double, at::Tensor&, at::Tensor&)>();
  op.call(q, k, eps, q_out, k_out);
  return {q_out, k_out};
}

std::string last_variant_text() { return exactune_qk_head_layer_norm_last_variant(); }

}  // namespace

OpGate qk_head_layer_norm_gate() { return {"qk_head_layer_norm", &qk_gate, &last_variant_text}; }

void bind_qk_head_layer_norm(pybind11::module_& module) {
  module.def("qk_head_layer_norm", &qk_head_layer_norm_direct, pybind11::call_guard<pybind11::gil_scoped_release>(),
             "exactune::qk_head_layer_norm without the dispatcher, for eager calls");
  module.def("qk_head_layer_norm_out", &qk_head_layer_norm_out_direct,
             pybind11::call_guard<pybind11::gil_scoped_release>(), "exactune::qk_head_layer_norm.out, likewise");
}

}  // namespace exactune::torch_ops

TORCH_LIBRARY_FRAGMENT(exactune, m) {
  m.def("qk_head_layer_norm(Tensor q, Tensor k, float eps=1e-06) -> (Tensor, Tensor)");
  m.def(
      "qk_head_layer_norm.out(Tensor q, Tensor k, float eps=1e-06, *, Tensor(a!) q_out, Tensor(b!) k_out) -> "
      "(Tensor(a!), Tensor(b!))");
}

TORCH_LIBRARY_IMPL(exactune, CUDA, m) {
  m.impl("qk_head_layer_norm", &exactune::torch_ops::qk_head_layer_norm_cuda);
  m.impl("qk_head_layer_norm.out", &exactune::torch_ops::qk_head_layer_norm_out_cuda);
}

TORCH_LIBRARY_IMPL(exactune, CPU, m) {
  m.impl("qk_head_layer_norm", &exactune::torch_ops::eager_qk_head_layer_norm);
  m.impl("qk_head_layer_norm.out", &exactune::torch_ops::qk_head_layer_norm_out_cpu);
}

TORCH_LIBRARY_IMPL(exactune, Meta, m) {
  m.impl("qk_head_layer_norm", &exactune::torch_ops::qk_head_layer_norm_meta);
  m.impl("qk_head_layer_norm.out", &exactune::torch_ops::qk_head_layer_norm_out_meta);
}
