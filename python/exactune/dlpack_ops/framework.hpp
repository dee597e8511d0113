// The framework the torch-free binding serves (torch, through the DLPack
// exchange API it publishes on its tensor type), as the ops of this module
// use it: which objects are its plain tensors, their layouts, the current
// stream, new outputs, and a capture in progress; and the owned Python
// references and errors they pass around.
#pragma once
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <optional>
#include <stdexcept>
#include <utility>

#include "../csrc/tensor_layout.hpp"
#include "dlpack_exchange.h"

namespace exactune::torch_ops {

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

// The Python error now set, cleared, as a C++ exception with its text (for the
// fused path, whose failures the gate counts and answers with the eager chain).
std::runtime_error take_python_error(const char* doing);

// function(*args), or PythonError.
PyRef call_python(PyObject* function, PyObject* const* args, std::size_t count);

// A new contiguous bf16 tensor of the framework's, released unless handed to Python.
class Output {
 public:
  Output(const TensorLayout& like);
  Output(Output&& other) noexcept : tensor_(std::exchange(other.tensor_, nullptr)) {}
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output();
  void* data() const { return tensor_->dl_tensor.data; }
  PyRef to_python();  // the tensor as the framework's Python object; this Output is then empty

 private:
  ExactuneDLManagedTensorVersioned* tensor_ = nullptr;
};

class Framework {
 public:
  static Framework& get();
  // init(): the exchange API's capsule, the tensor type, capturing() -> bool.
  void init(const ExactuneDLPackExchangeAPI* api, PyObject* tensor_type, PyObject* capturing);
  bool ready() const { return api_ != nullptr; }
  const ExactuneDLPackExchangeAPI& api() const { return *api_; }
  // An object of the framework's own tensor type (not a subclass: those are the dispatcher's).
  bool plain(PyObject* object) const { return Py_TYPE(object) == tensor_type_; }
  // The tensor's layout; nullopt, no error set, where DLPack cannot describe it (no storage: a functorch
  // wrapper, a meta tensor, ...).
  std::optional<TensorLayout> layout(PyObject* tensor) const;
  void* current_stream(int device) const;
  bool capturing() const;

 private:
  const ExactuneDLPackExchangeAPI* api_ = nullptr;
  PyTypeObject* tensor_type_ = nullptr;
  PyObject* capturing_ = nullptr;
};

}  // namespace exactune::torch_ops
