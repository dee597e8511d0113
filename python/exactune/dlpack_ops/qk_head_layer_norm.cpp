// qk_head_layer_norm(q, k, eps[, q_out, k_out]) of the torch-free binding:
// (F.layer_norm(q, (Dh,), eps=eps), F.layer_norm(k, (Dh,), eps=eps)), bit for
// bit, by the runtime's qk_head_layer_norm family behind the op's gate, as a
// tuple; outputs given and writable in place are written and returned, as
// layer_norm_modulate's out. NotImplemented for a call the framework's op must take.
#include <optional>

#include "ops.hpp"
#include "qk_head_layer_norm/runtime/exactune_qk_head_layer_norm.h"

namespace exactune::torch_ops {

OpGate& qk_head_layer_norm_op() {
  static OpGate op{"qk_head_layer_norm", &exactune_qk_head_layer_norm_last_variant};
  return op;
}

PyObject* qk_head_layer_norm(PyObject*, PyObject* const* args, Py_ssize_t count) {
  if (!ready_for("qk_head_layer_norm(q, k, eps[, q_out, k_out])", count, 3, 5)) return nullptr;
  if (count == 4) {
    PyErr_SetString(PyExc_TypeError, "qk_head_layer_norm: give both q_out and k_out, or neither");
    return nullptr;
  }
  const auto layouts = cuda_layouts<2>(args);
  if (!layouts) Py_RETURN_NOTIMPLEMENTED;
  const auto& [q, k] = *layouts;
  const double eps = PyFloat_AsDouble(args[2]);
  if (eps == -1.0 && PyErr_Occurred()) return nullptr;
  std::optional<TensorLayout> q_into, k_into;
  if (count == 5) {
    q_into = writable_output(args[3], q, {&q, &k});
    if (q_into) k_into = writable_output(args[4], k, {&q, &k, &*q_into});
  }
  Signature signature;
  for (const TensorLayout* t : {&q, &k}) signature.add(*t);
  if (q_into) signature.add(*q_into);
  if (k_into) signature.add(*k_into);
  signature.add_real(eps);
  return serve(qk_head_layer_norm_op(), signature, args, count, [&]() -> std::optional<PyRef> {
    if (q.ndim != 4 || k.ndim != 4 || !q.bf16 || !k.bf16 || k.device != q.device) return std::nullopt;
    for (int d = 0; d < 4; ++d) {
      if (q.shape[d] != k.shape[d]) return std::nullopt;
    }
    std::optional<Output> q_fresh, k_fresh;
    if (!q_into) q_fresh.emplace(q);
    if (!k_into) k_fresh.emplace(k);
    exactune_qk_head_layer_norm_args launch{};
    launch.device = q.device;
    launch.stream = Framework::get().current_stream(q.device);
    launch.q = q.data;
    launch.k = k.data;
    launch.q_out = q_into ? const_cast<void*>(q_into->data) : q_fresh->data();
    launch.k_out = k_into ? const_cast<void*>(k_into->data) : k_fresh->data();
    launch.batch = q.shape[0];
    launch.tokens = q.shape[1];
    launch.heads = q.shape[2];
    launch.head_dim = q.shape[3];
    for (int d = 0; d < 4; ++d) {
      launch.q_strides[d] = q.strides[d];
      launch.k_strides[d] = k.strides[d];
    }
    launch.eps = eps;
    const int status = exactune_qk_head_layer_norm(&launch);
    if (status == EXACTUNE_NOT_SERVED) return std::nullopt;
    if (status != EXACTUNE_OK) throw std::runtime_error(exactune_runtime_last_error());
    const auto result = [](std::optional<Output>& fresh, PyObject* given) {
      if (fresh) return fresh->to_python();
      Py_INCREF(given);
      return PyRef(given);
    };
    PyRef q_result = result(q_fresh, count == 5 ? args[3] : nullptr);
    PyRef k_result = result(k_fresh, count == 5 ? args[4] : nullptr);
    return PyRef(PyTuple_Pack(2, q_result.get(), k_result.get()));
  });
}

}  // namespace exactune::torch_ops
