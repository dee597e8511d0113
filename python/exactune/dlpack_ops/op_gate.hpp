// One op of the torch-free binding behind its exactness gate
// (include/exactune/exactness_gate.hpp): the gate and the Python callables that
// only a new signature needs (the eager chain, the bitwise comparison), and
// the call through it that every op makes.
#pragma once
#include <optional>
#include <string>

#include <exactune/exactness_gate.hpp>

#include "../csrc/signature.hpp"
#include "framework.hpp"

namespace exactune::torch_ops {

struct OpGate {
  OpGate(const char* name, const char* (*last_variant_of)()) : op(name), last_variant(last_variant_of) {}
  const char* op;
  const char* (*last_variant)();
  ExactnessGate<Signature, SignatureHash> gate;
  PyObject* eager = nullptr;           // eager(*the call's arguments) -> the result (a tensor or a tuple)
  PyObject* first_mismatch = nullptr;  // first_mismatch(fused, eager, variant) -> "" when the bits agree
};

// The three ops, by name (module.cpp binds their callables); nullptr for another name.
OpGate* op_gate_named(const char* op);

// A byte span [first, last) of a tensor, for overlap tests.
struct Span {
  std::uintptr_t first = 0, last = 0;
};
Span span_of(const TensorLayout& t);
bool overlap(const Span& a, const Span& b);

// `out` where a fused kernel may write it (a plain contiguous bf16 tensor laid out as `like`, on its device,
// overlapping none of `inputs`), else nullopt.
std::optional<TensorLayout> writable_output(PyObject* out, const TensorLayout& like,
                                            std::initializer_list<const TensorLayout*> inputs);

// One call through the op's gate: fused() -> std::optional<PyRef> (nullopt: the runtime does not serve it),
// the eager chain called with the call's own arguments. A new reference, or nullptr with a Python error set.
template <class Fused>
PyObject* serve(OpGate& op, const Signature& signature, PyObject* const* args, Py_ssize_t count, Fused&& fused) {
  if (!op.eager) {
    PyErr_Format(PyExc_RuntimeError, "exactune's DLPack binding: %s was not bound (bind())", op.op);
    return nullptr;
  }
  try {
    PyRef out = op.gate.call(
        signature, [] { return Framework::get().capturing(); }, fused,
        [&] { return call_python(op.eager, args, static_cast<std::size_t>(count)); },
        [&](const PyRef& fused_out, const PyRef& eager_out) {
          PyRef variant(PyUnicode_FromString(op.last_variant()));
          PyObject* compared[] = {fused_out.get(), eager_out.get(), variant.get()};
          PyRef text = call_python(op.first_mismatch, compared, 3);
          const char* utf8 = PyUnicode_AsUTF8(text.get());
          if (!utf8) throw PythonError();
          return std::string(utf8);
        },
        [&](const std::string& why) {
          const std::string message = std::string("exactune: ") + op.op +
                                      " runs the eager chain from now on (fused path disabled for good): " + why;
          if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw PythonError();
        });
    return out.release();
  } catch (const PythonError&) {
    return nullptr;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

// The layouts of a call's tensor arguments: nullopt where one is not a plain tensor of the framework's that
// DLPack describes on a CUDA device (the framework's op serves that call).
template <std::size_t N>
std::optional<std::array<TensorLayout, N>> cuda_layouts(PyObject* const* tensors) {
  const Framework& framework = Framework::get();
  std::array<TensorLayout, N> layouts;
  for (std::size_t i = 0; i < N; ++i) {
    if (!framework.plain(tensors[i])) return std::nullopt;
    const std::optional<TensorLayout> layout = framework.layout(tensors[i]);
    if (!layout || layout->device < 0) return std::nullopt;
    layouts[i] = *layout;
  }
  return layouts;
}

}  // namespace exactune::torch_ops
