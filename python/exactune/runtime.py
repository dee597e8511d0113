"""The runtime library's queries, through ctypes: which variants the tables
offer a family on a GPU, best first, and how the GPU was resolved (exact name,
same model, same architecture, global default); and which kernel export it
loads kernels from instead of compiling them. Needs no GPU.
"""

import ctypes
import functools
from typing import NamedTuple

from . import _native

__all__ = ["Candidate", "candidates", "kernel_export", "STATUS_NAMES"]

STATUS_NAMES = {0: "EXACTUNE_OK", 1: "EXACTUNE_NOT_SERVED", 2: "EXACTUNE_INVALID_ARGUMENT", 3: "EXACTUNE_ERROR"}


@functools.lru_cache(maxsize=1)
def _library():
    _native.point_runtime_at_nvrtc()
    lib = ctypes.CDLL(str(_native.runtime_library()))
    lib.exactune_runtime_last_error.restype = ctypes.c_char_p
    lib.exactune_runtime_candidates.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
                                                ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_char_p,
                                                ctypes.c_size_t]
    lib.exactune_runtime_export.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return lib


class Candidate(NamedTuple):
    """One variant the tables offer: its step of the fallback chain ("tuned bucket", "device default", ...), and
    whether it is verified on that GPU at that size; the runtime never launches an unverified one."""
    variant: str
    step: str
    verified: bool


def candidates(family, device_name, cc_major, cc_minor, sm_count, size, rows):
    """(how the device was resolved, [Candidate, ...] best first) for these inputs: the runtime launches the
    first verified one that can take the caller's data.

    Raises RuntimeError with the runtime's reason when it cannot answer (an
    unknown family, bad arguments, unreadable tables)."""
    lib = _library()
    text = ctypes.create_string_buffer(1 << 16)
    status = lib.exactune_runtime_candidates(family.encode(), device_name.encode(), cc_major, cc_minor, sm_count,
                                             size, rows, text, len(text))
    if status != 0:
        raise RuntimeError(f"{STATUS_NAMES.get(status, status)}: {lib.exactune_runtime_last_error().decode()}")
    lines = text.value.decode().splitlines()
    device = lines[0].split("\t", 1)[1]
    offered = []
    for line in lines[1:]:
        variant, step, proof = line.split("\t")
        offered.append(Candidate(variant, step, proof == "verified"))
    return device, offered


def kernel_export():
    """The kernel export the runtime loads kernels from ($EXACTUNE_EXPORT_DIR, else exactune_export/ beside the
    runtime library: a wheel's), as {"folder", "kernels", "compiler", "generated_by"}; None when it has none (every
    kernel is then compiled by NVRTC at its first call). Raises RuntimeError when the export named is unreadable."""
    lib = _library()
    text = ctypes.create_string_buffer(1 << 12)
    status = lib.exactune_runtime_export(text, len(text))
    if status == 1:
        return None
    if status != 0:
        raise RuntimeError(f"{STATUS_NAMES.get(status, status)}: {lib.exactune_runtime_last_error().decode()}")
    folder, kernels, compiler, generated_by = text.value.decode().rstrip("\n").split("\t")
    return {"folder": folder, "kernels": int(kernels), "compiler": compiler, "generated_by": generated_by}
