// exactune's torch ops, one file each (<op>_op.cpp): what the extension
// module (torch_ops.cpp) needs of each to bind its direct entries and to
// answer for its gate. Each op's file registers the op's schemas and kernels
// with torch itself.
#pragma once
#include <torch/extension.h>

#include <string>

#include "op_support.hpp"

namespace exactune::torch_ops {

// An op's exactness gate, and the "<variant> (<step>)" of its last fused launch on this thread.
struct OpGate {
  const char* op;
  Gate& (*gate)();
  std::string (*last_variant)();
};

OpGate layer_norm_modulate_gate();
OpGate qk_head_layer_norm_gate();
OpGate gated_residual_layer_norm_modulate_gate();

// The op's direct entries: pybind11 functions of the extension module.
void bind_layer_norm_modulate(pybind11::module_& module);
void bind_qk_head_layer_norm(pybind11::module_& module);
void bind_gated_residual_layer_norm_modulate(pybind11::module_& module);

}  // namespace exactune::torch_ops
