"""exactune's torch ops, bit-exact with PyTorch's eager chains:

    exactune.torch.layer_norm_modulate(x, scale, shift, eps=1e-6, *, out=None)
        == F.layer_norm(x, (D,), eps=eps) * (1 + scale) + shift
           (x: bf16 (B, S, D); scale, shift: (B, D) or (B, 1, D), views of an
           adaLN projection included; 2-D ones act as (B, 1, D))
    exactune.torch.qk_head_layer_norm(q, k, eps=1e-6, *, out=None)
        == (F.layer_norm(q, (Dh,), eps=eps), F.layer_norm(k, (Dh,), eps=eps))
           (q, k: bf16 (B, S, H, Dh))
    exactune.torch.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps=1e-6)
        == (r, F.layer_norm(r, (D,), eps=eps) * (1 + scale) + shift) with r = x + gate * h
           (x, h: bf16 (B, S, D), contiguous; gate, scale, shift: rows as
           layer_norm_modulate's scale and shift, read by the kernel with one
           row stride: chunks of one adaLN projection)

They are `torch.ops.exactune.<name>`, registered in C++ (csrc/, one file an
op) with Meta kernels, so torch.compile(fullgraph=True) and CUDA graphs take them.
Called eagerly, these functions skip the dispatcher: they call the op's CUDA
kernel through the extension module's direct entry, which hands any call the
dispatcher must see (autograd, a tensor subclass or mode, a CPU tensor) to the
op itself. Under torch.compile they are the ops.
Each runs behind an exactness gate (one an op): a new input signature is checked once
against the eager chain, bit for bit; a mismatch disables the op's fused path
for good with a warning naming the first differing element, while a failure of
the fused path (out of memory, say) runs that call eager and is counted.
A token-major x (Sana's activations: y.permute(0, 2, 1) of a contiguous
(B, D, S) y) is read in place by the layer_norm_modulate_token_major family's
in-place variant (tile or lanes) that the tables choose. Anything not served (not
bf16 or CUDA, misaligned, D % 4 != 0, D > 8192, x neither contiguous nor
token-major, a token-major x on a GPU without a table, ...) runs the eager chain
and never raises.

The op library is compiled on first import with torch's extension builder
(cached under $TORCH_EXTENSIONS_DIR) and linked against the runtime library
(see exactune._native). EXACTUNE_TORCH_BINDING=dlpack serves the same ops
through the torch-free binding instead (exactune.torch_dlpack, registered by
exactune.dlpack_library; PyTorch 2.10 and later): nothing is compiled. By
default (auto) that binding serves where the extension cannot be compiled (no
C++ compiler or no CUDA headers) and the binding can.
"""

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

try:
    import torch
except ModuleNotFoundError as _missing:
    raise ModuleNotFoundError(
        "exactune.torch needs PyTorch, which this Python cannot import (install torch); exactune.runtime and "
        "exactune.gate work without it", name="torch") from _missing
import torch.utils.cpp_extension as _cpp_extension  # noqa: E402

from . import _native  # noqa: E402

__all__ = ["layer_norm_modulate", "qk_head_layer_norm", "gated_residual_layer_norm_modulate", "gate_status",
           "reset_gate", "last_variant", "OPS", "enable_compile_pass", "disable_compile_pass"]

OPS = ("layer_norm_modulate", "qk_head_layer_norm", "gated_residual_layer_norm_modulate")


def _cuda_include_dir():
    home = _cpp_extension.CUDA_HOME or os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    return str(Path(home) / "include")


def _load_ops():
    _native.point_runtime_at_nvrtc()
    runtime = _native.runtime_library()
    csrc = _native.PACKAGE_DIR / "csrc"
    sources = sorted(csrc.glob("*.cpp"))
    includes = _native.header_roots()
    # torch rebuilds when sources or flags change; the contents of the headers
    # the ops include (the gate, the runtime's C ABIs, their own) go in a flag
    # so that a changed header rebuilds too.
    headers = sorted([*(includes[0] / "exactune").glob("*.h*"), *includes[1].glob("*/runtime/*.h"),
                      *csrc.glob("*.hpp")])
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in headers)).hexdigest()[:16]
    return _cpp_extension.load(
        name="exactune_torch_ops",
        sources=[str(source) for source in sources],
        extra_include_paths=[str(p) for p in includes] + [_cuda_include_dir()],
        extra_cflags=["-O2", f"-DEXACTUNE_HEADERS_DIGEST={digest}"],
        extra_ldflags=[str(runtime), f"-Wl,-rpath,{runtime.parent}", "-lc10_cuda", "-ltorch_cuda"],
        is_python_module=True,
        verbose=os.environ.get("EXACTUNE_VERBOSE_BUILD") == "1",
    )


class _DLPackEntries:
    """The eager entries and gate controls of the torch-free binding (exactune.torch_dlpack), shaped as the
    extension module's direct entries: what the dispatcher must see (a Python mode, autograd, tracing) goes
    through torch.ops.exactune.*, as the extension's direct entry hands it to the op."""

    def __init__(self):
        from . import dlpack_library  # noqa: F401  (registers torch.ops.exactune.*)
        from . import torch_dlpack

        ops = torch.ops.exactune

        def modulate_op(x, scale, shift, eps, *, out=None):
            if out is None:
                return ops.layer_norm_modulate.default(x, scale, shift, eps)
            return ops.layer_norm_modulate.out(x, scale, shift, eps, out=out)

        def qk_op(q, k, eps, *, out=None):
            if out is None:
                return ops.qk_head_layer_norm.default(q, k, eps)
            return ops.qk_head_layer_norm.out(q, k, eps, q_out=out[0], k_out=out[1])

        self.binding = torch_dlpack
        self.layer_norm_modulate, self.qk_head_layer_norm, self.gated_residual_layer_norm_modulate = \
            torch_dlpack.make_entries(modulate_op, qk_op, ops.gated_residual_layer_norm_modulate.default)

    def layer_norm_modulate_out(self, x, scale, shift, eps, out):
        return self.layer_norm_modulate(x, scale, shift, eps, out=out)

    def qk_head_layer_norm_out(self, q, k, eps, q_out, k_out):
        return self.qk_head_layer_norm(q, k, eps, out=(q_out, k_out))


def _extension_cannot_build():
    """Why this machine cannot compile the extension ("" when it can): it needs a C++ compiler and CUDA's
    headers."""
    compiler = (os.environ.get("CXX") or "c++").split()[0]
    if shutil.which(compiler) is None:
        return f"no C++ compiler ({compiler})"
    headers = Path(_cuda_include_dir())
    if not (headers / "cuda_runtime_api.h").is_file():
        return f"no CUDA headers in {headers}"
    return ""


def _dlpack_binding_present():
    try:
        folder = _native.runtime_library().parent
    except _native.NativeLibraryMissing:
        return False
    return hasattr(torch.Tensor, "__dlpack_c_exchange_api__") and any(folder.glob("_exactune_dlpack.*.so"))


def _choose_binding():
    """EXACTUNE_TORCH_BINDING: "extension" (csrc/, compiled against this torch on first import), "dlpack" (the
    torch-free binding, torch 2.10 and later; docs/runtime.md), or "auto" (the default): the extension, unless
    this machine cannot compile it and the torch-free binding can serve, which is said once on stderr."""
    chosen = os.environ.get("EXACTUNE_TORCH_BINDING", "auto")
    if chosen not in ("auto", "extension", "dlpack"):
        raise ValueError(f"EXACTUNE_TORCH_BINDING={chosen}: 'auto', 'extension' or 'dlpack'")
    if chosen != "auto":
        return chosen
    why = _extension_cannot_build()
    if why and _dlpack_binding_present():
        if os.environ.get("EXACTUNE_LOG") != "0":
            print(f"exactune: the torch ops use the torch-free binding: {why} to build the extension",
                  file=sys.stderr)
        return "dlpack"
    return "extension"  # a machine that can build neither gets the extension builder's own error


BINDING = _choose_binding()
_direct = _DLPackEntries() if BINDING == "dlpack" else _load_ops()
_modulate_op = torch.ops.exactune.layer_norm_modulate
_qk_op = torch.ops.exactune.qk_head_layer_norm
_gated_residual_op = torch.ops.exactune.gated_residual_layer_norm_modulate
_is_compiling = torch.compiler.is_compiling


def layer_norm_modulate(x, scale, shift, eps=1e-6, *, out=None):
    """F.layer_norm(x, (D,), eps=eps) * (1 + scale) + shift, bit for bit (see the module's help).
    out: a tensor of x's shape, dtype and device to write the result into (returned); the fused kernel writes
    it directly where it is contiguous and overlaps no input, else the result is copied in."""
    if out is None:
        if _is_compiling():
            return _modulate_op.default(x, scale, shift, eps)
        return _direct.layer_norm_modulate(x, scale, shift, eps)
    if _is_compiling():
        return _modulate_op.out(x, scale, shift, eps, out=out)
    return _direct.layer_norm_modulate_out(x, scale, shift, eps, out)


def qk_head_layer_norm(q, k, eps=1e-6, *, out=None):
    """(F.layer_norm(q, (Dh,), eps=eps), F.layer_norm(k, (Dh,), eps=eps)), bit for bit.
    out: a (q_out, k_out) pair to write the results into (returned), as layer_norm_modulate's out."""
    if out is None:
        if _is_compiling():
            return _qk_op.default(q, k, eps)
        return _direct.qk_head_layer_norm(q, k, eps)
    q_out, k_out = out
    if _is_compiling():
        return _qk_op.out(q, k, eps, q_out=q_out, k_out=k_out)
    return _direct.qk_head_layer_norm_out(q, k, eps, q_out, k_out)


def gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps=1e-6):
    """(r, F.layer_norm(r, (D,), eps=eps) * (1 + scale) + shift) with r = x + gate * h, bit for bit: the new
    residual stream and the next adaLN site's input (see the module's help)."""
    if _is_compiling():
        return _gated_residual_op.default(x, h, gate, scale, shift, eps)
    return _direct.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps)


def gate_status(op="layer_norm_modulate"):
    """An op's gate: {"enabled": bool, "verified": signatures verified, "unserved": signatures remembered as not
    served, "failures": calls whose fused path failed (each ran eager), "disabled_because": str (a mismatch),
    "last_failure": str}."""
    if BINDING == "dlpack":
        return _direct.binding.gate_status(op)
    return json.loads(torch.ops.exactune.gate_status(op))


def reset_gate(op="layer_norm_modulate"):
    """Opens an op's gate again with nothing verified: for tests, never for serving."""
    if BINDING == "dlpack":
        return _direct.binding.reset_gate(op)
    torch.ops.exactune.gate_reset(op)


def last_variant(op="layer_norm_modulate"):
    """"<variant> (<step>)" of the op's last fused launch on this thread ("" before any)."""
    if BINDING == "dlpack":
        return _direct.binding.last_variant(op)
    return torch.ops.exactune.last_variant(op)


def enable_compile_pass():
    """torch.compile routes F.layer_norm(x, (D,), eps) * (1 + scale) + shift, and the per-head layer norms of q
    and k, to these ops in every graph it compiles from now on, with no change to model code
    (exactune.compile_pass says what is matched)."""
    from . import compile_pass

    compile_pass.enable()


def disable_compile_pass():
    from . import compile_pass

    compile_pass.disable()

