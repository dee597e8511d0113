// exactune's torch extension module: the torch.ops.exactune library, whose
// ops are registered in C++ so that a call costs the dispatcher and one
// kernel launch, with no Python on the hot path; one file an op
// (<op>_op.cpp), this one for what they share as a library.
//
// Each op goes through an ExactnessGate (include/exactune/exactness_gate.hpp):
// a new input signature is verified once against the eager chain, bit for
// bit; a mismatch disables the op's fused path for good, with a warning that
// names the first differing element, while a failure of the fused path runs
// that call eager and is counted. Inputs the runtime does not serve (not
// bf16, not CUDA, misaligned, a size or layout aten runs through another
// kernel) run the eager chain and never raise. The Meta kernels make the ops
// traceable by torch.compile; the CPU kernels are the eager chain.
//
// The same ops are also pybind11 functions of this extension module (the
// direct entries), which exactune.torch calls in eager mode: the dispatcher's
// boxed path is most of a call's host cost. Here: the gates' control ops and
// the module's bindings.
#include <torch/extension.h>
#include <torch/library.h>

#include <array>
#include <string>

#include "ops.hpp"

namespace exactune::torch_ops {
namespace {

const std::array<OpGate, 3>& op_gates() {
  static const std::array<OpGate, 3> gates{layer_norm_modulate_gate(), qk_head_layer_norm_gate(),
                                           gated_residual_layer_norm_modulate_gate()};
  return gates;
}

const OpGate& op_gate_named(const std::string& op) {
  std::string known;
  for (const OpGate& gate : op_gates()) {
    if (op == gate.op) return gate;
    known += (known.empty() ? "" : ", ") + std::string(gate.op);
  }
  C10_THROW_ERROR(ValueError, std::string("exactune: no op named '") + op + "' (" + known + ")");
}

std::string gate_status(const std::string& op) { return describe_gate(op_gate_named(op).gate()); }

bool gate_reset(const std::string& op) {
  op_gate_named(op).gate().reset();
  return true;
}

// The variant the op's last fused launch on this thread ran, and the step of
// the tables' fallback chain that chose it.
std::string last_variant(const std::string& op) { return op_gate_named(op).last_variant(); }

}  // namespace
}  // namespace exactune::torch_ops

// The extension module (named by torch's extension builder): the direct
// entries, each with the GIL released, as torch.ops calls are, so that a first
// sight's compile does not stall other Python threads.
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  exactune::torch_ops::bind_layer_norm_modulate(m);
  exactune::torch_ops::bind_qk_head_layer_norm(m);
  exactune::torch_ops::bind_gated_residual_layer_norm_modulate(m);
}

// The library; each op's file adds its schemas (TORCH_LIBRARY_FRAGMENT) and kernels.
TORCH_LIBRARY(exactune, m) {
  m.def("gate_status(str op) -> str", &exactune::torch_ops::gate_status);
  m.def("gate_reset(str op) -> bool", &exactune::torch_ops::gate_reset);
  m.def("last_variant(str op) -> str", &exactune::torch_ops::last_variant);
}
