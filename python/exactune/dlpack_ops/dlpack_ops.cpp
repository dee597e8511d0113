// exactune's torch-free binding: layer_norm_modulate for a framework that
// publishes the DLPack exchange API on its tensor type (PyTorch 2.10 and
// later: torch.Tensor.__dlpack_c_exchange_api__). A CPython module built
// against Python's C API and the runtime's C ABI alone, with no torch header
// or library, so that one build serves every such torch and nothing is
// compiled at import. Tensors are read, the current stream asked for and
// outputs allocated through the exchange API's C functions: no Python call on
// a verified signature's path.
//
// The op runs behind its own ExactnessGate (include/exactune/exactness_gate.hpp):
// a new signature runs the fused path and the eager chain and compares their
// bits (both through Python callables given to init(), as is the check of a
// CUDA-graph capture, which only an unverified signature asks); a mismatch
// closes the gate for good with a RuntimeWarning. Inputs that are not plain
// tensors of the framework's type return NotImplemented: exactune.torch_dlpack
// then calls the op through the framework.
//
//   init(exchange_api_capsule, tensor_type, eager, first_mismatch, capturing)
//   layer_norm_modulate(x, scale, shift, eps) -> tensor | NotImplemented
//   gate_status() -> dict;  gate_reset();  last_variant() -> str
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <exactune/exactness_gate.hpp>

#include "../csrc/modulation_layout.hpp"
#include "../csrc/signature.hpp"
#include "dlpack_exchange.h"
#include "layer_norm_modulate/runtime/exactune_layer_norm_modulate.h"
#include "layer_norm_modulate_token_major/runtime/exactune_layer_norm_modulate_token_major.h"

namespace exactune::torch_ops {
namespace {

// An owned Python reference.
class PyRef {
 public:
  PyRef() = default;
  explicit PyRef(PyObject* owned) : object_(owned) {}
  PyRef(PyRef&& other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  PyRef& operator=(PyRef&& other) noexcept {
    std::swap(object_, other.object_);
    return *this;
  }
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() { Py_XDECREF(object_); }
  PyObject* get() const { return object_; }
  PyObject* release() { return std::exchange(object_, nullptr); }

 private:
  PyObject* object_ = nullptr;
};

// A Python exception is set: it propagates to the caller as it is.
struct PythonError : std::exception {
  const char* what() const noexcept override { return "a Python exception is set"; }
};

// The Python error now set, cleared, as a C++ exception with its text (for
// the fused path, whose failures the gate counts and answers with the eager chain).
std::runtime_error take_python_error(const char* doing) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyRef text(value ? PyObject_Str(value) : nullptr);
  std::string message = doing;
  if (text.get()) message += std::string(": ") + PyUnicode_AsUTF8(text.get());
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  return std::runtime_error(message);
}

using Gate = ExactnessGate<Signature, SignatureHash>;

struct Binding {
  const ExactuneDLPackExchangeAPI* api = nullptr;
  PyTypeObject* tensor_type = nullptr;
  PyObject* eager = nullptr;           // eager(x, scale, shift, eps) -> tensor
  PyObject* first_mismatch = nullptr;  // first_mismatch(fused, eager, variant) -> str ("" when equal)
  PyObject* capturing = nullptr;       // capturing() -> bool
  Gate gate;
};

Binding& binding() {
  static Binding instance;
  return instance;
}

thread_local bool last_entry_was_token_major = false;

const char* last_modulate_variant() {
  return last_entry_was_token_major ? exactune_layer_norm_modulate_token_major_last_variant()
                                    : exactune_layer_norm_modulate_last_variant();
}

// A tensor's layout, read through the exchange API without a Python call.
TensorLayout layout_of(PyObject* tensor) {
  const ExactuneDLPackExchangeAPI& api = *binding().api;
  ExactuneDLTensor t{};
  ExactuneDLManagedTensorVersioned* managed = nullptr;
  if (api.dltensor_from_py_object_no_sync) {
    if (api.dltensor_from_py_object_no_sync(tensor, &t) != 0) throw PythonError();
  } else {
    if (api.managed_tensor_from_py_object_no_sync(tensor, &managed) != 0) throw PythonError();
    t = managed->dl_tensor;
  }
  TensorLayout layout;
  if (t.ndim > 4) {
    layout.ndim = -1;
  } else {
    layout.ndim = t.ndim;
    std::int64_t compact = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
      layout.shape[d] = t.shape[d];
      layout.strides[d] = t.strides ? t.strides[d] : compact;
      compact *= t.shape[d];
    }
    layout.bf16 = t.dtype.code == EXACTUNE_DL_BFLOAT && t.dtype.bits == 16 && t.dtype.lanes == 1;
    layout.dtype = (static_cast<std::int64_t>(t.dtype.code) << 24) | (t.dtype.bits << 16) | t.dtype.lanes;
    layout.device = t.device.device_type == EXACTUNE_DL_CUDA ? t.device.device_id : -1;
    layout.data = static_cast<const char*>(t.data) + t.byte_offset;
  }
  if (managed && managed->deleter) managed->deleter(managed);
  return layout;
}

// The allocator's error, kept as text (no Python error is set on the fused path).
void keep_error(void* context, const char* kind, const char* message) {
  *static_cast<std::string*>(context) = std::string(kind) + ": " + message;
}

// A new contiguous bf16 tensor of x's shape on x's device, from the framework's allocator.
ExactuneDLManagedTensorVersioned* new_output(const TensorLayout& x) {
  ExactuneDLTensor prototype{};
  std::int64_t shape[4];
  for (int d = 0; d < x.ndim; ++d) shape[d] = x.shape[d];
  prototype.ndim = x.ndim;
  prototype.shape = shape;
  prototype.dtype = {EXACTUNE_DL_BFLOAT, 16, 1};
  prototype.device = {EXACTUNE_DL_CUDA, x.device};
  ExactuneDLManagedTensorVersioned* out = nullptr;
  std::string error;
  if (binding().api->managed_tensor_allocator(&prototype, &out, &error, keep_error) != 0 || out == nullptr) {
    throw std::runtime_error("the framework could not allocate the output: " + error);
  }
  return out;
}

std::optional<PyRef> fused_layer_norm_modulate(const TensorLayout& x, const TensorLayout& scale,
                                               const TensorLayout& shift, double eps) {
  const std::optional<ModulationRows> rows = modulation_rows(x, scale, shift);
  if (!rows || x.device < 0) return std::nullopt;
  void* stream = nullptr;
  if (binding().api->current_work_stream(EXACTUNE_DL_CUDA, x.device, &stream) != 0) {
    throw take_python_error("the framework's current stream");
  }
  ExactuneDLManagedTensorVersioned* out = new_output(x);
  exactune_layer_norm_modulate_args args = modulate_args(x, scale, shift, *rows, eps, out->dl_tensor.data);
  args.stream = stream;
  const bool to_token_major = token_major(x, *rows);
  const int status =
      to_token_major ? exactune_layer_norm_modulate_token_major(&args) : exactune_layer_norm_modulate(&args);
  if (status != EXACTUNE_OK) {
    out->deleter(out);
    if (status == EXACTUNE_NOT_SERVED) return std::nullopt;
    throw std::runtime_error(exactune_runtime_last_error());
  }
  last_entry_was_token_major = to_token_major;
  void* tensor = nullptr;
  if (binding().api->managed_tensor_to_py_object_no_sync(out, &tensor) != 0) {
    throw take_python_error("the output tensor");
  }
  return PyRef(static_cast<PyObject*>(tensor));
}

PyRef call_python(PyObject* function, PyObject* const* args, std::size_t count) {
  PyRef result(PyObject_Vectorcall(function, args, count, nullptr));
  if (!result.get()) throw PythonError();
  return result;
}

PyObject* layer_norm_modulate(PyObject*, PyObject* const* args, Py_ssize_t count) {
  Binding& b = binding();
  if (!b.api) {
    PyErr_SetString(PyExc_RuntimeError, "exactune's DLPack binding: init() was not called");
    return nullptr;
  }
  if (count != 4) {
    PyErr_SetString(PyExc_TypeError, "layer_norm_modulate(x, scale, shift, eps) takes 4 arguments");
    return nullptr;
  }
  for (int i = 0; i < 3; ++i) {
    if (Py_TYPE(args[i]) != b.tensor_type) Py_RETURN_NOTIMPLEMENTED;  // a subclass or another type: the framework's op
  }
  const double eps = PyFloat_AsDouble(args[3]);
  if (eps == -1.0 && PyErr_Occurred()) return nullptr;
  TensorLayout x, scale, shift;
  try {
    x = layout_of(args[0]);
    scale = layout_of(args[1]);
    shift = layout_of(args[2]);
  } catch (const PythonError&) {
    // A tensor DLPack cannot describe (no storage: a functorch wrapper, ...): the framework's op.
    PyErr_Clear();
    Py_RETURN_NOTIMPLEMENTED;
  }
  // Not on CUDA, or of a rank the ops do not describe (no device then): the framework's op, no signature kept.
  if (x.device < 0) Py_RETURN_NOTIMPLEMENTED;
  try {
    Signature signature;
    for (const TensorLayout* t : {&x, &scale, &shift}) signature.add(*t);
    signature.add_real(eps);
    const auto eager = [&] { return call_python(b.eager, args, 4); };
    PyRef out = b.gate.call(
        signature,
        [&] {
          PyRef capturing = call_python(b.capturing, nullptr, 0);
          return PyObject_IsTrue(capturing.get()) == 1;
        },
        [&] { return fused_layer_norm_modulate(x, scale, shift, eps); }, eager,
        [&](const PyRef& fused, const PyRef& reference) {
          PyRef variant(PyUnicode_FromString(last_modulate_variant()));
          PyObject* compare_args[] = {fused.get(), reference.get(), variant.get()};
          PyRef text = call_python(b.first_mismatch, compare_args, 3);
          const char* utf8 = PyUnicode_AsUTF8(text.get());
          if (!utf8) throw PythonError();
          return std::string(utf8);
        },
        [](const std::string& why) {
          const std::string message =
              "exactune: layer_norm_modulate runs the eager chain from now on (fused path disabled for good): " + why;
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

PyObject* init(PyObject*, PyObject* const* args, Py_ssize_t count) {
  if (count != 5) {
    PyErr_SetString(PyExc_TypeError, "init(exchange_api, tensor_type, eager, first_mismatch, capturing)");
    return nullptr;
  }
  auto* api = static_cast<const ExactuneDLPackExchangeAPI*>(PyCapsule_GetPointer(args[0], "dlpack_exchange_api"));
  if (!api) return nullptr;
  if (api->header.version.major != EXACTUNE_DLPACK_MAJOR) {
    PyErr_Format(PyExc_RuntimeError, "the framework's DLPack exchange API is version %u.%u, this binding reads %d.x",
                 api->header.version.major, api->header.version.minor, EXACTUNE_DLPACK_MAJOR);
    return nullptr;
  }
  if (!PyType_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "init: tensor_type must be a type");
    return nullptr;
  }
  Binding& b = binding();
  for (int i = 1; i < 5; ++i) Py_INCREF(args[i]);  // kept for the life of the process
  b.api = api;
  b.tensor_type = reinterpret_cast<PyTypeObject*>(args[1]);
  b.eager = args[2];
  b.first_mismatch = args[3];
  b.capturing = args[4];
  Py_RETURN_NONE;
}

PyObject* gate_status(PyObject*, PyObject*) {
  const Gate& gate = binding().gate;
  return Py_BuildValue("{s:O,s:n,s:n,s:n,s:s,s:s}", "enabled", gate.enabled() ? Py_True : Py_False, "verified",
                       static_cast<Py_ssize_t>(gate.verified_count()), "unserved",
                       static_cast<Py_ssize_t>(gate.unserved_count()), "failures",
                       static_cast<Py_ssize_t>(gate.failure_count()), "disabled_because",
                       gate.disabled_because().c_str(), "last_failure", gate.last_failure().c_str());
}

PyObject* gate_reset(PyObject*, PyObject*) {
  binding().gate.reset();
  Py_RETURN_NONE;
}

PyObject* last_variant(PyObject*, PyObject*) { return PyUnicode_FromString(last_modulate_variant()); }

PyMethodDef methods[] = {
    {"init", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&init)), METH_FASTCALL,
     "init(exchange_api, tensor_type, eager, first_mismatch, capturing): the framework this binding serves"},
    {"layer_norm_modulate", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&layer_norm_modulate)),
     METH_FASTCALL, "layer_norm_modulate(x, scale, shift, eps) -> tensor, or NotImplemented for other inputs"},
    {"gate_status", gate_status, METH_NOARGS, "the gate's state, as a dict"},
    {"gate_reset", gate_reset, METH_NOARGS, "opens the gate again with nothing verified: for tests"},
    {"last_variant", last_variant, METH_NOARGS, "the variant of the last fused launch on this thread"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT,
                      "_exactune_dlpack",
                      "exactune's torch-free binding (python/exactune/dlpack_ops/dlpack_ops.cpp)",
                      -1,
                      methods,
                      nullptr,
                      nullptr,
                      nullptr,
                      nullptr};

}  // namespace
}  // namespace exactune::torch_ops

PyMODINIT_FUNC PyInit__exactune_dlpack() { return PyModule_Create(&exactune::torch_ops::module); }
