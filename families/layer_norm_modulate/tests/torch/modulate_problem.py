"""What the torch cross-checks of the LayerNorm + modulate families share: the
exactune_problem struct of their C ABIs (layer_norm_modulate/capi/exactune_capi.h),
bf16 bits of a tensor, and a mismatch report that names the first differing
element. The token-major family's test imports it from here."""
import ctypes

import numpy as np
import torch


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
