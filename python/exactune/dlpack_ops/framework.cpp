// The framework the torch-free binding serves (framework.hpp).
#include "framework.hpp"

#include <string>

namespace exactune::torch_ops {

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

PyRef call_python(PyObject* function, PyObject* const* args, std::size_t count) {
  PyRef result(PyObject_Vectorcall(function, args, count, nullptr));
  if (!result.get()) throw PythonError();
  return result;
}

namespace {

// The allocator's error, kept as text: no Python error is set on the fused path.
void keep_error(void* context, const char* kind, const char* message) {
  *static_cast<std::string*>(context) = std::string(kind) + ": " + message;
}

}  // namespace

Output::Output(const TensorLayout& like) {
  ExactuneDLTensor prototype{};
  std::int64_t shape[4];
  for (int d = 0; d < like.ndim; ++d) shape[d] = like.shape[d];
  prototype.ndim = like.ndim;
  prototype.shape = shape;
  prototype.dtype = {EXACTUNE_DL_BFLOAT, 16, 1};
  prototype.device = {EXACTUNE_DL_CUDA, like.device};
  std::string error;
  if (Framework::get().api().managed_tensor_allocator(&prototype, &tensor_, &error, keep_error) != 0 ||
      tensor_ == nullptr) {
    throw std::runtime_error("the framework could not allocate an output: " + error);
  }
}

Output::~Output() {
  if (tensor_ && tensor_->deleter) tensor_->deleter(tensor_);
}

PyRef Output::to_python() {
  void* object = nullptr;
  if (Framework::get().api().managed_tensor_to_py_object_no_sync(std::exchange(tensor_, nullptr), &object) != 0) {
    throw take_python_error("the framework could not wrap an output");
  }
  return PyRef(static_cast<PyObject*>(object));
}

Framework& Framework::get() {
  static Framework instance;
  return instance;
}

void Framework::init(const ExactuneDLPackExchangeAPI* api, PyObject* tensor_type, PyObject* capturing) {
  Py_INCREF(tensor_type);  // kept for the life of the process
  Py_INCREF(capturing);
  api_ = api;
  tensor_type_ = reinterpret_cast<PyTypeObject*>(tensor_type);
  capturing_ = capturing;
}

std::optional<TensorLayout> Framework::layout(PyObject* tensor) const {
  ExactuneDLTensor t{};
  ExactuneDLManagedTensorVersioned* managed = nullptr;
  const int status = api_->dltensor_from_py_object_no_sync
                         ? api_->dltensor_from_py_object_no_sync(tensor, &t)
                         : api_->managed_tensor_from_py_object_no_sync(tensor, &managed);
  if (status != 0) {
    PyErr_Clear();
    return std::nullopt;
  }
  if (managed) t = managed->dl_tensor;
  TensorLayout layout;
  if (t.ndim > 4) {
    layout.ndim = -1;  // no device either: no op serves it
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

void* Framework::current_stream(int device) const {
  void* stream = nullptr;
  if (api_->current_work_stream(EXACTUNE_DL_CUDA, device, &stream) != 0) {
    throw take_python_error("the framework's current stream");
  }
  return stream;
}

bool Framework::capturing() const {
  PyRef answer = call_python(capturing_, nullptr, 0);
  const int truth = PyObject_IsTrue(answer.get());
  if (truth < 0) throw PythonError();
  return truth == 1;
}

}  // namespace exactune::torch_ops
