"""torch.ops.exactune.* registered from Python over the torch-free binding
(exactune.torch_dlpack), for EXACTUNE_TORCH_BINDING=dlpack: the schemas of
the C++ extension's ops (csrc/), their CUDA kernels the binding's functions,
their CPU kernels the eager chains, their Meta kernels the outputs' shapes
(symbolic ones too: torch.compile's dynamic shapes), so that torch.compile, the
compile pass and CUDA graphs take them as they take the extension's. Imported
by exactune.torch in that mode only: one of the two registers the namespace in
a process.
"""

import torch

from . import torch_dlpack as etd

__all__ = ["LIBRARY"]

LIBRARY = torch.library.Library("exactune", "DEF")

# The C++ extension's schemas (csrc/<op>_op.cpp), word for word.
_SCHEMAS = (
    "layer_norm_modulate(Tensor x, Tensor scale, Tensor shift, float eps=1e-06) -> Tensor",
    "layer_norm_modulate.out(Tensor x, Tensor scale, Tensor shift, float eps=1e-06, *, Tensor(a!) out) -> Tensor(a!)",
    "qk_head_layer_norm(Tensor q, Tensor k, float eps=1e-06) -> (Tensor, Tensor)",
    "qk_head_layer_norm.out(Tensor q, Tensor k, float eps=1e-06, *, Tensor(a!) q_out, Tensor(b!) k_out) -> "
    "(Tensor(a!), Tensor(b!))",
    "gated_residual_layer_norm_modulate(Tensor x, Tensor h, Tensor gate, Tensor scale, Tensor shift, "
    "float eps=1e-06) -> (Tensor, Tensor)",
)


def _qk_out(q, k, eps=1e-6, *, q_out, k_out):
    return etd.qk_head_layer_norm(q, k, eps, out=(q_out, k_out))


def _empty_like(t):
    return torch.empty(t.shape, dtype=t.dtype, device=t.device)


# The Meta kernels see tensors of symbolic sizes under torch.compile's dynamic shapes: sizes are compared one
# torch._check each (a SymBool, never a Python `and` or a shape's ==, which would ask for its truth). A check
# the shape environment cannot decide becomes a guard, as the C++ extension's TORCH_SYM_CHECK does.
def _check(condition, message):
    torch._check(condition, lambda: message)


def _check_sizes(a, b, message):
    _check(len(a) == len(b), message)
    for m, n in zip(a, b):
        _check(m == n, message)


def _modulate_meta(x, scale, shift, eps=1e-6):
    _check(x.dim() == 3, "exactune.layer_norm_modulate: x must be (batch, tokens, hidden)")
    _check_sizes((scale.shape[-1], shift.shape[-1]), (x.shape[-1],) * 2,
                 "exactune.layer_norm_modulate: scale and shift rows must have x's hidden size")
    return _empty_like(x)


def _check_out_meta(out, like, what):
    """etd.check_out for the Meta kernels: sizes as SymInts."""
    message = f"exactune: {what} must have the shape, dtype and device of the result"
    _check(out.dtype == like.dtype and out.device == like.device, message)
    _check_sizes(out.shape, like.shape, message)


def _modulate_out_meta(x, scale, shift, eps=1e-6, *, out):
    _check_out_meta(out, x, "layer_norm_modulate's out")
    return out


def _qk_meta(q, k, eps=1e-6):
    return _empty_like(q), _empty_like(k)


def _qk_out_meta(q, k, eps=1e-6, *, q_out, k_out):
    _check_out_meta(q_out, q, "qk_head_layer_norm's q_out")
    _check_out_meta(k_out, k, "qk_head_layer_norm's k_out")
    return q_out, k_out


def _gated_residual_meta(x, h, gate, scale, shift, eps=1e-6):
    alike = "exactune.gated_residual_layer_norm_modulate: x and h must be (batch, tokens, hidden) alike"
    _check(x.dim() == 3, alike)
    _check_sizes(h.shape, x.shape, alike)
    _check_sizes((gate.shape[-1], scale.shape[-1], shift.shape[-1]), (x.shape[-1],) * 3,
                 "exactune.gated_residual_layer_norm_modulate: gate, scale and shift rows must have x's hidden size")
    return _empty_like(x), _empty_like(x)


_KERNELS = {  # op: (CUDA, CPU, Meta)
    "layer_norm_modulate": (etd.layer_norm_modulate, etd._eager_modulate, _modulate_meta),
    # The binding's entry takes out= as the schema passes it (keyword), and checks it.
    "layer_norm_modulate.out": (etd.layer_norm_modulate, etd.layer_norm_modulate, _modulate_out_meta),
    "qk_head_layer_norm": (etd.qk_head_layer_norm, etd._eager_qk, _qk_meta),
    "qk_head_layer_norm.out": (_qk_out, _qk_out, _qk_out_meta),
    "gated_residual_layer_norm_modulate": (etd.gated_residual_layer_norm_modulate, etd._eager_gated_residual,
                                           _gated_residual_meta),
}

for _schema in _SCHEMAS:
    LIBRARY.define(_schema)
for _name, (_cuda, _cpu, _meta) in _KERNELS.items():
    LIBRARY.impl(_name, _cuda, "CUDA")
    LIBRARY.impl(_name, _cpu, "CPU")
    LIBRARY.impl(_name, _meta, "Meta")
