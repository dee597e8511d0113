"""exactune's torch-free binding of layer_norm_modulate, for PyTorch 2.10 and
later (torch.Tensor.__dlpack_c_exchange_api__):

    import exactune.torch_dlpack as etd
    out = etd.layer_norm_modulate(x, scale, shift, 1e-6)   # == exactune.torch.layer_norm_modulate's bits

The same op as exactune.torch's, served by the same runtime behind a gate of
its own, through a CPython module built against Python's C API and the
runtime's C ABI alone (python/exactune/dlpack_ops/, `_exactune_dlpack` beside
the runtime library): no torch header or library, so one build serves every
such torch and nothing is compiled at import. It reads tensors, the current
stream and new outputs through the DLPack exchange API's C functions.
A call the dispatcher must see (autograd, a tensor subclass or Python mode, a
tensor DLPack cannot describe, torch.compile tracing) and anything the runtime
does not serve run the eager chain. It is the candidate that
python/tools/runtime_bench.py times beside exactune.torch's direct entry
(docs/runtime.md): which binding the ops keep is chosen by that figure.
"""

import importlib.machinery
import importlib.util

import torch
import torch.nn.functional as F

from . import _native

__all__ = ["layer_norm_modulate", "gate_status", "reset_gate", "last_variant", "MODULE_NAME"]

MODULE_NAME = "_exactune_dlpack"


def _module_path():
    """The built module beside the runtime library (the wheel's exactune/lib/, or the build folder)."""
    folder = _native.runtime_library().parent
    found = sorted(folder.glob(MODULE_NAME + ".*.so"))
    if not found:
        raise ImportError(f"{MODULE_NAME} not found beside {folder}: build the exactune_dlpack target (needs "
                          "Python's development headers)", name=MODULE_NAME)
    return found[0]


def _load():
    api = getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)
    if api is None:
        raise ImportError(f"torch {torch.__version__} publishes no DLPack exchange API "
                          "(torch.Tensor.__dlpack_c_exchange_api__, PyTorch 2.10 and later): use exactune.torch",
                          name=MODULE_NAME)
    _native.point_runtime_at_nvrtc()
    path = _module_path()
    loader = importlib.machinery.ExtensionFileLoader(MODULE_NAME, str(path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(MODULE_NAME, loader))
    loader.exec_module(module)
    module.init(api, torch.Tensor, _eager, _first_mismatch, torch.cuda.is_current_stream_capturing)
    return module


def _eager(x, scale, shift, eps):
    scale = scale[:, None] if scale.dim() == 2 else scale
    shift = shift[:, None] if shift.dim() == 2 else shift
    return F.layer_norm(x, (x.shape[-1],), eps=eps) * (1 + scale) + shift


def _first_mismatch(fused, eager, variant):
    """"" when fused and eager hold the same bits, else where they first differ."""
    a, b = fused.contiguous().view(torch.int16).flatten(), eager.contiguous().view(torch.int16).flatten()
    if a.shape != b.shape:
        return f"layer_norm_modulate: the fused kernel {variant} differs from the eager chain in shape"
    differ = a != b
    if not bool(differ.any()):
        return ""
    index, row_length = int(differ.nonzero()[0, 0]), eager.shape[-1]
    return (f"layer_norm_modulate: the fused kernel {variant} differs from the eager chain at row "
            f"{index // row_length}, column {index % row_length}: fused 0x{int(a[index]) & 0xffff:04x}, eager "
            f"0x{int(b[index]) & 0xffff:04x}; {int(differ.sum())} of {a.numel()} elements differ")


_module = _load()
_python_key = torch._C.DispatchKey.Python
_key_included = torch._C._dispatch_tls_is_dispatch_key_included
_is_compiling = torch.compiler.is_compiling
_grad_enabled = torch.is_grad_enabled


def layer_norm_modulate(x, scale, shift, eps=1e-6):
    """F.layer_norm(x, (D,), eps=eps) * (1 + scale) + shift, bit for bit (see the module's help)."""
    if not (_is_compiling() or _key_included(_python_key)
            or (_grad_enabled() and (x.requires_grad or scale.requires_grad or shift.requires_grad))):
        out = _module.layer_norm_modulate(x, scale, shift, eps)
        if out is not NotImplemented:
            return out
    return _eager(x, scale, shift, eps)


def gate_status():
    """The gate: {"enabled", "verified", "unserved", "failures", "disabled_because", "last_failure"}."""
    return _module.gate_status()


def reset_gate():
    """Opens the gate again with nothing verified: for tests, never for serving."""
    _module.gate_reset()


def last_variant():
    """"<variant> (<step>)" of the last fused launch on this thread ("" before any)."""
    return _module.last_variant()
