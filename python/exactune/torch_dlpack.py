"""exactune's torch-free binding, for PyTorch 2.10 and later
(torch.Tensor.__dlpack_c_exchange_api__): the ops of exactune.torch, with its
bits, served by the same runtime and tables, each behind a gate of its own:

    import exactune.torch_dlpack as etd
    out = etd.layer_norm_modulate(x, scale, shift, 1e-6, out=None)
    q_out, k_out = etd.qk_head_layer_norm(q, k, 1e-6, out=None)
    r, y = etd.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, 1e-6)

They go through a CPython module built against Python's C API and the
runtime's C ABI alone (python/exactune/dlpack_ops/, `_exactune_dlpack` beside
the runtime library): no torch header or library, so one build serves every
such torch and nothing is compiled at import. It reads tensors, the current
stream and new outputs through the DLPack exchange API's C functions. A call
the dispatcher must see (autograd, a Python mode, torch.compile tracing) goes
to the route make_entries was given (these module functions: the eager chain;
exactune.torch's: torch.ops.exactune.*); a tensor subclass, a tensor DLPack
cannot describe and anything the runtime does not serve run the eager chain.
python/tools/runtime_bench.py times it beside exactune.torch's direct entry:
on an H100 it cost 0.8 to 2.2 µs more a call, so exactune.torch keeps the
extension where it can be built (docs/runtime.md).
"""

import importlib.machinery
import importlib.util

import torch
import torch.nn.functional as F

from . import _native

__all__ = ["layer_norm_modulate", "qk_head_layer_norm", "gated_residual_layer_norm_modulate", "gate_status",
           "reset_gate", "last_variant", "make_entries", "check_out", "OPS", "MODULE_NAME"]

MODULE_NAME = "_exactune_dlpack"
OPS = ("layer_norm_modulate", "qk_head_layer_norm", "gated_residual_layer_norm_modulate")


def _rows(t):
    """A (B, D) row as (B, 1, D), as the eager chains broadcast it."""
    return t[:, None] if t.dim() == 2 else t


def _eager_modulate(x, scale, shift, eps=1e-6, out=None):
    return F.layer_norm(x, (x.shape[-1],), eps=eps) * (1 + _rows(scale)) + _rows(shift)


def _eager_qk(q, k, eps=1e-6, q_out=None, k_out=None):
    return F.layer_norm(q, (q.shape[-1],), eps=eps), F.layer_norm(k, (k.shape[-1],), eps=eps)


def _eager_gated_residual(x, h, gate, scale, shift, eps=1e-6):
    residual = x + _rows(gate) * h
    return residual, _eager_modulate(residual, scale, shift, eps)


def _mismatch_of(op):
    """first_mismatch(fused, eager, variant) for `op`: "" when every output holds the same bits."""
    def first_mismatch(fused, eager, variant):
        outputs = list(zip(fused, eager)) if isinstance(fused, tuple) else [(fused, eager)]
        for which, (got, want) in enumerate(outputs):
            where = f"{op} (output {which})" if len(outputs) > 1 else op
            a, b = got.contiguous().view(torch.int16).flatten(), want.contiguous().view(torch.int16).flatten()
            if a.shape != b.shape:
                return f"{where}: the fused kernel {variant} differs from the eager chain in shape"
            differ = a != b
            if bool(differ.any()):
                index, row_length = int(differ.nonzero()[0, 0]), want.shape[-1]
                return (f"{where}: the fused kernel {variant} differs from the eager chain at row "
                        f"{index // row_length}, column {index % row_length}: fused 0x{int(a[index]) & 0xffff:04x}, "
                        f"eager 0x{int(b[index]) & 0xffff:04x}; {int(differ.sum())} of {a.numel()} elements differ")
        return ""
    return first_mismatch


def _load():
    api = getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)
    if api is None:
        raise ImportError(f"torch {torch.__version__} publishes no DLPack exchange API "
                          "(torch.Tensor.__dlpack_c_exchange_api__, PyTorch 2.10 and later): use exactune.torch",
                          name=MODULE_NAME)
    _native.point_runtime_at_nvrtc()
    folder = _native.runtime_library().parent
    found = sorted(folder.glob(MODULE_NAME + ".*.so"))
    if not found:
        raise ImportError(f"{MODULE_NAME} not found beside {folder}: build the exactune_dlpack target (needs "
                          "Python's development headers)", name=MODULE_NAME)
    loader = importlib.machinery.ExtensionFileLoader(MODULE_NAME, str(found[0]))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(MODULE_NAME, loader))
    loader.exec_module(module)
    module.init(api, torch.Tensor, torch.cuda.is_current_stream_capturing)
    for op, eager in zip(OPS, (_eager_modulate, _eager_qk, _eager_gated_residual)):
        module.bind(op, eager, _mismatch_of(op))
    return module


_module = _load()
_python_key = torch._C.DispatchKey.Python
_key_included = torch._C._dispatch_tls_is_dispatch_key_included
_is_compiling = torch.compiler.is_compiling
_grad_enabled = torch.is_grad_enabled


def _dispatcher_must_see():
    """Tracing, or a Python mode. (Each op asks, and then whether an input wants autograd, inline: no tuple or
    generator on the hot path.)"""
    return _is_compiling() or _key_included(_python_key)


def check_out(out, like, what):
    """An out= tensor must have the shape, dtype and device of the result it receives (as the extension's ops
    require), checked before anything is written or run."""
    if out.shape != like.shape or out.dtype != like.dtype or out.device != like.device:
        raise RuntimeError(f"exactune: {what} must have the shape, dtype and device of the result")


def make_entries(modulate_route=None, qk_route=None, gated_residual_route=None):
    """The three ops' entries, each the binding's fused path behind its gate: (layer_norm_modulate,
    qk_head_layer_norm, gated_residual_layer_norm_modulate). A call the dispatcher must see (tracing, a Python
    mode, an input that wants autograd) goes to the op's route, called as the op's function is; by default, and
    for what the runtime does not serve, the eager chain. exactune.torch routes such calls to
    torch.ops.exactune.*, as the extension's direct entry does; the ops' own kernels (exactune.dlpack_library)
    keep the eager chain, which cannot call back into the dispatcher."""
    modulate_route = modulate_route or _eager_modulate_into
    qk_route = qk_route or _eager_qk_into
    gated_residual_route = gated_residual_route or _eager_gated_residual

    def layer_norm_modulate(x, scale, shift, eps=1e-6, *, out=None):
        """F.layer_norm(x, (D,), eps=eps) * (1 + scale) + shift, bit for bit; written into `out` when given."""
        if out is not None:
            check_out(out, x, "layer_norm_modulate's out")
        if _dispatcher_must_see() or (_grad_enabled() and (x.requires_grad or scale.requires_grad
                                                            or shift.requires_grad)):
            return modulate_route(x, scale, shift, eps, out=out)
        result = _module.layer_norm_modulate(x, scale, shift, eps) if out is None else \
            _module.layer_norm_modulate(x, scale, shift, eps, out)
        if result is NotImplemented:
            return _eager_modulate_into(x, scale, shift, eps, out=out)
        return result if out is None or result is out else out.copy_(result)

    def qk_head_layer_norm(q, k, eps=1e-6, *, out=None):
        """(F.layer_norm(q, (Dh,), eps=eps), F.layer_norm(k, (Dh,), eps=eps)), bit for bit; written into the
        (q_out, k_out) pair `out` when given."""
        if out is not None:
            check_out(out[0], q, "qk_head_layer_norm's q_out")
            check_out(out[1], k, "qk_head_layer_norm's k_out")
        if _dispatcher_must_see() or (_grad_enabled() and (q.requires_grad or k.requires_grad)):
            return qk_route(q, k, eps, out=out)
        result = _module.qk_head_layer_norm(q, k, eps) if out is None else _module.qk_head_layer_norm(q, k, eps, *out)
        if result is NotImplemented:
            return _eager_qk_into(q, k, eps, out=out)
        if out is None:
            return result
        return tuple(given if got is given else given.copy_(got) for got, given in zip(result, out))

    def gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps=1e-6):
        """(r, F.layer_norm(r, (D,), eps=eps) * (1 + scale) + shift) with r = x + gate * h, bit for bit."""
        if _dispatcher_must_see() or (_grad_enabled() and (x.requires_grad or h.requires_grad or gate.requires_grad
                                                            or scale.requires_grad or shift.requires_grad)):
            return gated_residual_route(x, h, gate, scale, shift, eps)
        result = _module.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps)
        if result is NotImplemented:
            return _eager_gated_residual(x, h, gate, scale, shift, eps)
        return result

    return layer_norm_modulate, qk_head_layer_norm, gated_residual_layer_norm_modulate


def _eager_modulate_into(x, scale, shift, eps=1e-6, *, out=None):
    result = _eager_modulate(x, scale, shift, eps)
    return result if out is None else out.copy_(result)


def _eager_qk_into(q, k, eps=1e-6, *, out=None):
    result = _eager_qk(q, k, eps)
    return result if out is None else tuple(given.copy_(got) for got, given in zip(result, out))


layer_norm_modulate, qk_head_layer_norm, gated_residual_layer_norm_modulate = make_entries()


def gate_status(op="layer_norm_modulate"):
    """An op's gate: {"enabled", "verified", "unserved", "failures", "disabled_because", "last_failure"}."""
    return _module.gate_status(op)


def reset_gate(op="layer_norm_modulate"):
    """Opens an op's gate again with nothing verified: for tests, never for serving."""
    _module.gate_reset(op)


def last_variant(op="layer_norm_modulate"):
    """"<variant> (<step>)" of the op's last fused launch on this thread ("" before any)."""
    return _module.last_variant(op)
