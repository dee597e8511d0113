// exactune's torch-free binding: the ops for a framework that publishes the
// DLPack exchange API on its tensor type (PyTorch 2.10 and later:
// torch.Tensor.__dlpack_c_exchange_api__). A CPython module built against
// Python's C API and the runtime's C ABI alone, with no torch header or
// library, so that one build serves every such torch and nothing is compiled
// at import. Tensors are read, the current stream asked for and outputs
// allocated through the exchange API's C functions (framework.hpp): no Python
// call on a verified signature's path.
//
// Each op runs behind its own ExactnessGate (op_gate.hpp): a new signature
// runs the fused path and the eager chain and compares their bits, both
// through the Python callables bind() gave the op, and asks capturing() (a
// CUDA graph being captured: the eager chain); a mismatch closes the gate for
// good with a RuntimeWarning. Inputs that are not plain CUDA tensors of the
// framework's type, that DLPack cannot describe, return NotImplemented:
// exactune.torch_dlpack then runs the eager chain.
//
//   init(exchange_api_capsule, tensor_type, capturing)
//   bind(op, eager, first_mismatch)
//   layer_norm_modulate(x, scale, shift, eps[, out]) -> tensor
//   qk_head_layer_norm(q, k, eps[, q_out, k_out]) -> (q_out, k_out)
//   gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps) -> (residual, y)
//   gate_status(op) -> dict;  gate_reset(op);  last_variant(op) -> str
#include <cstring>

#include "ops.hpp"

namespace exactune::torch_ops {

OpGate* op_gate_named(const char* op) {
  for (OpGate* gate : {&layer_norm_modulate_op(), &qk_head_layer_norm_op(), &gated_residual_layer_norm_modulate_op()}) {
    if (std::strcmp(gate->op, op) == 0) return gate;
  }
  return nullptr;
}

bool ready_for(const char* usage, Py_ssize_t count, Py_ssize_t least, Py_ssize_t most) {
  if (!Framework::get().ready()) {
    PyErr_SetString(PyExc_RuntimeError, "exactune's DLPack binding: init() was not called");
    return false;
  }
  if (count < least || count > most) {
    PyErr_Format(PyExc_TypeError, "%s: %zd arguments given", usage, count);
    return false;
  }
  return true;
}

namespace {

PyObject* init(PyObject*, PyObject* const* args, Py_ssize_t count) {
  if (count != 3) {
    PyErr_SetString(PyExc_TypeError, "init(exchange_api, tensor_type, capturing)");
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
  Framework::get().init(api, args[1], args[2]);
  Py_RETURN_NONE;
}

OpGate* named_or_error(PyObject* name) {
  const char* op = PyUnicode_AsUTF8(name);
  if (!op) return nullptr;
  OpGate* gate = op_gate_named(op);
  if (!gate) {
    PyErr_Format(PyExc_ValueError,
                 "exactune: no op named '%s' (layer_norm_modulate, qk_head_layer_norm, "
                 "gated_residual_layer_norm_modulate)",
                 op);
  }
  return gate;
}

PyObject* bind(PyObject*, PyObject* const* args, Py_ssize_t count) {
  if (count != 3) {
    PyErr_SetString(PyExc_TypeError, "bind(op, eager, first_mismatch)");
    return nullptr;
  }
  OpGate* gate = named_or_error(args[0]);
  if (!gate) return nullptr;
  Py_INCREF(args[1]);  // kept for the life of the process
  Py_INCREF(args[2]);
  gate->eager = args[1];
  gate->first_mismatch = args[2];
  Py_RETURN_NONE;
}

PyObject* gate_status(PyObject*, PyObject* name) {
  const OpGate* op = named_or_error(name);
  if (!op) return nullptr;
  const auto& gate = op->gate;
  return Py_BuildValue("{s:O,s:n,s:n,s:n,s:s,s:s}", "enabled", gate.enabled() ? Py_True : Py_False, "verified",
                       static_cast<Py_ssize_t>(gate.verified_count()), "unserved",
                       static_cast<Py_ssize_t>(gate.unserved_count()), "failures",
                       static_cast<Py_ssize_t>(gate.failure_count()), "disabled_because",
                       gate.disabled_because().c_str(), "last_failure", gate.last_failure().c_str());
}

PyObject* gate_reset(PyObject*, PyObject* name) {
  OpGate* op = named_or_error(name);
  if (!op) return nullptr;
  op->gate.reset();
  Py_RETURN_NONE;
}

PyObject* last_variant(PyObject*, PyObject* name) {
  const OpGate* op = named_or_error(name);
  return op ? PyUnicode_FromString(op->last_variant()) : nullptr;
}

template <PyObject* (*function)(PyObject*, PyObject* const*, Py_ssize_t)>
PyCFunction fastcall() {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(function));
}

PyMethodDef methods[] = {
    {"init", fastcall<&init>(), METH_FASTCALL, "init(exchange_api, tensor_type, capturing): the framework served"},
    {"bind", fastcall<&bind>(), METH_FASTCALL, "bind(op, eager, first_mismatch): what an op's new signature runs"},
    {"layer_norm_modulate", fastcall<&layer_norm_modulate>(), METH_FASTCALL,
     "layer_norm_modulate(x, scale, shift, eps[, out]) -> tensor, or NotImplemented"},
    {"qk_head_layer_norm", fastcall<&qk_head_layer_norm>(), METH_FASTCALL,
     "qk_head_layer_norm(q, k, eps[, q_out, k_out]) -> (q_out, k_out), or NotImplemented"},
    {"gated_residual_layer_norm_modulate", fastcall<&gated_residual_layer_norm_modulate>(), METH_FASTCALL,
     "gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps) -> (residual, y), or NotImplemented"},
    {"gate_status", gate_status, METH_O, "gate_status(op): the op's gate, as a dict"},
    {"gate_reset", gate_reset, METH_O, "gate_reset(op): opens the op's gate again with nothing verified (tests)"},
    {"last_variant", last_variant, METH_O, "last_variant(op): the variant of its last fused launch on this thread"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT,
                      "_exactune_dlpack",
                      "exactune's torch-free binding (python/exactune/dlpack_ops/module.cpp)",
                      -1,
                      methods,
                      nullptr,
                      nullptr,
                      nullptr,
                      nullptr};

}  // namespace
}  // namespace exactune::torch_ops

PyMODINIT_FUNC PyInit__exactune_dlpack() { return PyModule_Create(&exactune::torch_ops::module); }
