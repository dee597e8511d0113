// layer_norm_modulate(x, scale, shift, eps[, out]) of the torch-free binding:
// F.layer_norm(x, (D,), eps=eps) * (1 + scale) + shift, bit for bit, by the
// runtime's layer_norm_modulate family (its token-major one for a token-major
// x) behind the op's gate. out, when given and writable in place (plain,
// contiguous, bf16, x's shape and device, overlapping no input), is written
// and returned; else a new tensor is (exactune.torch_dlpack copies it into out).
// NotImplemented for a call the framework's op must take.
#include <optional>

#include "../csrc/modulation_layout.hpp"
#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"
#include "layer_norm_modulate_token_major/runtime/exactune_layer_norm_modulate_token_major.h"
#include "ops.hpp"

namespace exactune::torch_ops {
namespace {

thread_local bool last_entry_was_token_major = false;

const char* last_modulate_variant() {
  return last_entry_was_token_major ? exactune_layer_norm_modulate_token_major_last_variant()
                                    : exactune_layer_norm_modulate_last_variant();
}

}  // namespace

OpGate& layer_norm_modulate_op() {
  static OpGate op{"layer_norm_modulate", &last_modulate_variant};
  return op;
}

PyObject* layer_norm_modulate(PyObject*, PyObject* const* args, Py_ssize_t count) {
  if (!ready_for("layer_norm_modulate(x, scale, shift, eps[, out])", count, 4, 5)) return nullptr;
  const auto layouts = cuda_layouts<3>(args);
  if (!layouts) Py_RETURN_NOTIMPLEMENTED;
  const auto& [x, scale, shift] = *layouts;
  const double eps = PyFloat_AsDouble(args[3]);
  if (eps == -1.0 && PyErr_Occurred()) return nullptr;
  PyObject* out = count == 5 ? args[4] : nullptr;
  const std::optional<TensorLayout> into = out ? writable_output(out, x, {&x, &scale, &shift}) : std::nullopt;
  void* const into_data = into ? const_cast<void*>(into->data) : nullptr;
  Signature signature;
  for (const TensorLayout* t : {&x, &scale, &shift}) signature.add(*t);
  if (into) signature.add(*into);
  signature.add_real(eps);
  return serve(layer_norm_modulate_op(), signature, args, count, [&]() -> std::optional<PyRef> {
    const std::optional<ModulationRows> rows = modulation_rows(x, scale, shift);
    if (!rows) return std::nullopt;
    std::optional<Output> fresh;
    if (!into) fresh.emplace(x);
    void* const target = fresh ? fresh->data() : into_data;
    exactune_layer_norm_modulate_args launch = modulate_args(x, scale, shift, *rows, eps, target);
    launch.stream = Framework::get().current_stream(x.device);
    const bool to_token_major = token_major(x, *rows);
    const int status =
        to_token_major ? exactune_layer_norm_modulate_token_major(&launch) : exactune_layer_norm_modulate(&launch);
    if (status == EXACTUNE_NOT_SERVED) return std::nullopt;
    if (status != EXACTUNE_OK) throw std::runtime_error(exactune_runtime_last_error());
    last_entry_was_token_major = to_token_major;
    if (into) {
      Py_INCREF(out);
      return PyRef(out);
    }
    return fresh->to_python();
  });
}

}  // namespace exactune::torch_ops
