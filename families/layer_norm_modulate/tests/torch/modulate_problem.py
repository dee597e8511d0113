"""What the torch cross-checks of the LayerNorm + modulate families share: the
C ABI library opened, the exactune_problem struct of their C ABIs
(layer_norm_modulate/capi/exactune_capi.h), bf16 bits of a tensor, and a
mismatch report that names the first differing element. The token-major and
gated residual families' tests import it from here."""
import ctypes
import os

import numpy as np
import pytest
import torch


def open_capi():
    """The C ABI library at $EXACTUNE_CAPI, with exactune_last_error typed; the test skips without it or without a
    GPU (a failure where EXACTUNE_REQUIRE_GPU=1, as ci/gpu.sh sets: conftest.py). Each test types its own entries:
    without argtypes ctypes passes Python ints as 32-bit C ints, and pointers would be cut."""
    path = os.environ.get("EXACTUNE_CAPI")
    if not path:
        pytest.skip("EXACTUNE_CAPI is not set (ci/gpu.sh sets it to the built libexactune_capi.so)")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    lib = ctypes.CDLL(path)
    lib.exactune_last_error.restype = ctypes.c_char_p
    lib.exactune_last_error.argtypes = []
    return lib


class Problem(ctypes.Structure):
    _fields_ = [
        ("x", ctypes.c_void_p),
        ("embedding", ctypes.c_void_p),
        ("embedding_elements", ctypes.c_int64),
        ("scale_offset", ctypes.c_int64),
        ("shift_offset", ctypes.c_int64),
        ("modulation_stride", ctypes.c_int64),
        ("batch", ctypes.c_int32),
        ("tokens", ctypes.c_int32),
        ("hidden", ctypes.c_int32),
        ("eps", ctypes.c_double),
    ]


def check(lib, status):
    if status != 0:
        raise RuntimeError(lib.exactune_last_error().decode())


def bits16(t):
    return t.detach().contiguous().cpu().view(torch.int16).numpy().view(np.uint16).reshape(-1)


def mismatch_report(expected, actual, hidden, what):
    bad = np.nonzero(expected != actual)[0]
    if bad.size == 0:
        return None
    i = bad[0]
    return (f"{what}: {bad.size} of {expected.size} differ; first at row {i // hidden}, column {i % hidden}: "
            f"torch 0x{expected[i]:04x}, exactune 0x{actual[i]:04x}")
