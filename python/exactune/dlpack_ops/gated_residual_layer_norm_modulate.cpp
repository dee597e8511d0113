// gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps) of the
// torch-free binding: (r, F.layer_norm(r, (D,), eps=eps) * (1 + scale) +
// shift) with r = x + gate * h, bit for bit, by the runtime's gated residual
// family behind the op's gate, as a tuple of two new tensors. gate, scale and
// shift are rows as layer_norm_modulate's scale and shift, read with one row
// stride. NotImplemented for a call the framework's op must take.
#include <optional>

#include "../csrc/modulation_layout.hpp"
#include "gated_residual_layer_norm_modulate/runtime/exactune_gated_residual_layer_norm_modulate.h"
#include "ops.hpp"

namespace exactune::torch_ops {

OpGate& gated_residual_layer_norm_modulate_op() {
  static OpGate op{"gated_residual_layer_norm_modulate", &exactune_gated_residual_layer_norm_modulate_last_variant};
  return op;
}

PyObject* gated_residual_layer_norm_modulate(PyObject*, PyObject* const* args, Py_ssize_t count) {
  if (!ready_for("gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps)", count, 6, 6)) return nullptr;
  const auto layouts = cuda_layouts<5>(args);
  if (!layouts) Py_RETURN_NOTIMPLEMENTED;
  const auto& [x, h, gate, scale, shift] = *layouts;
  const double eps = PyFloat_AsDouble(args[5]);
  if (eps == -1.0 && PyErr_Occurred()) return nullptr;
  Signature signature;
  for (const TensorLayout* t : {&x, &h, &gate, &scale, &shift}) signature.add(*t);
  signature.add_real(eps);
  return serve(gated_residual_layer_norm_modulate_op(), signature, args, count, [&]() -> std::optional<PyRef> {
    if (!x.contiguous() || h.ndim != 3 || !h.contiguous() || !h.bf16 || h.device != x.device) return std::nullopt;
    for (int d = 0; d < 3; ++d) {
      if (h.shape[d] != x.shape[d]) return std::nullopt;
    }
    const std::optional<ModulationRows> rows = modulation_rows(x, scale, shift);
    if (!rows) return std::nullopt;
    const std::optional<std::int64_t> gate_row_stride = modulation_row_stride(gate, x, rows->per_token);
    if (!gate_row_stride) return std::nullopt;
    Output residual(x), y(x);
    exactune_gated_residual_layer_norm_modulate_args launch{};
    launch.modulate = modulate_args(x, scale, shift, *rows, eps, y.data());
    launch.modulate.stream = Framework::get().current_stream(x.device);
    launch.h = h.data;
    launch.gate = gate.data;
    launch.gate_row_stride = *gate_row_stride;
    launch.residual = residual.data();
    const int status = exactune_gated_residual_layer_norm_modulate(&launch);
    if (status == EXACTUNE_NOT_SERVED) return std::nullopt;
    if (status != EXACTUNE_OK) throw std::runtime_error(exactune_runtime_last_error());
    PyRef residual_tensor = residual.to_python();
    PyRef y_tensor = y.to_python();
    return PyRef(PyTuple_Pack(2, residual_tensor.get(), y_tensor.get()));
  });
}

}  // namespace exactune::torch_ops
