// The torch-free binding's ops, one file each (module.cpp lists them): each a
// METH_FASTCALL function of the module and the gate it runs behind.
#pragma once
#include "op_gate.hpp"

namespace exactune::torch_ops {

// Whether the module was initialised and the call has count arguments in [least, most]; else false with a
// Python error naming `usage`.
bool ready_for(const char* usage, Py_ssize_t count, Py_ssize_t least, Py_ssize_t most);

OpGate& layer_norm_modulate_op();
OpGate& qk_head_layer_norm_op();
OpGate& gated_residual_layer_norm_modulate_op();

PyObject* layer_norm_modulate(PyObject*, PyObject* const* args, Py_ssize_t count);
PyObject* qk_head_layer_norm(PyObject*, PyObject* const* args, Py_ssize_t count);
PyObject* gated_residual_layer_norm_modulate(PyObject*, PyObject* const* args, Py_ssize_t count);

}  // namespace exactune::torch_ops
