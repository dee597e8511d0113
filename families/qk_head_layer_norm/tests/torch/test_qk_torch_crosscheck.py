"""The qk_head_layer_norm family against real PyTorch, bit for bit, on the GPU machine.

PyTorch runs attention's per-head q/k LayerNorm (qk_norm="layer_norm", no affine)
    F.layer_norm(q, (head_dim,), eps=eps), F.layer_norm(k, (head_dim,), eps=eps)
on (batch, tokens, heads, head_dim) bf16 tensors, and torch.native_layer_norm for
mean and rstd; exactune's reference must reproduce all of them, and every valid
fused variant must reproduce both outputs. exactune is reached through the
family's C ABI (families/qk_head_layer_norm/capi/exactune_qk_capi.h), built into
the shared library whose path comes in EXACTUNE_CAPI.
"""
import ctypes
import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F


class Problem(ctypes.Structure):
    _fields_ = [
        ("q", ctypes.c_void_p),
        ("k", ctypes.c_void_p),
        ("batch", ctypes.c_int32),
        ("tokens", ctypes.c_int32),
        ("heads", ctypes.c_int32),
        ("head_dim", ctypes.c_int32),
        ("eps", ctypes.c_double),
    ]


@pytest.fixture(scope="module")
def capi():
    path = os.environ.get("EXACTUNE_CAPI")
    if not path:
        pytest.skip("EXACTUNE_CAPI is not set: give it the path of the built libexactune_capi.so "
                    "(it carries the qk_head_layer_norm family's exactune_qk_* functions)")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU: the cross-check compares GPU results")
    lib = ctypes.CDLL(path)
    # Without argtypes ctypes passes Python ints as 32-bit C ints: pointers would be cut.
    problem, ptr = ctypes.POINTER(Problem), ctypes.c_void_p
    lib.exactune_qk_last_error.restype = ctypes.c_char_p
    lib.exactune_qk_last_error.argtypes = []
    lib.exactune_qk_reference.argtypes = [problem, ptr, ptr, ptr, ptr, ptr, ptr]
    lib.exactune_qk_list_variants.argtypes = [ctypes.c_int32, ctypes.c_char_p, ctypes.c_size_t]
    lib.exactune_qk_run_variant.argtypes = [problem, ctypes.c_char_p, ptr, ptr]
    for f in (lib.exactune_qk_reference, lib.exactune_qk_list_variants, lib.exactune_qk_run_variant):
        f.restype = ctypes.c_int
    return lib


def check(lib, status):
    if status != 0:
        raise RuntimeError(lib.exactune_qk_last_error().decode())


def bits16(t):
    return t.detach().contiguous().cpu().view(torch.int16).numpy().view(np.uint16).reshape(-1)


def bits32(t):
    return t.detach().contiguous().cpu().view(torch.int32).numpy().view(np.uint32).reshape(-1)


def from_bits16(bits):
    return torch.from_numpy(bits.astype(np.uint16).view(np.int16)).view(torch.bfloat16)


# The input cases of families/qk_head_layer_norm/qk_head_layer_norm_inputs.cpp,
# drawn here with torch's generator (the same kinds of rows, not the same values).
def make_tensor(shape, kind, amplitude, offset, g):
    batch, tokens, heads, head_dim = shape
    rows = batch * tokens * heads
    if kind == "normal":
        mu = torch.rand(rows, 1, generator=g) * 2 - 1
        x = offset + amplitude * (torch.randn(rows, head_dim, generator=g) + mu)
        return x.to(torch.bfloat16).reshape(shape)
    sign = (torch.randint(0, 2, (rows, head_dim), generator=g) * 0x8000).numpy().astype(np.uint32)
    if kind == "signed_zeros":
        # Rows of signed zeros (variance 0), and every third row sparse N(0, 1) among them.
        values = bits16(torch.randn(rows, head_dim, generator=g).to(torch.bfloat16)).reshape(rows, head_dim)
        keep = (torch.randint(0, 8, (rows, head_dim), generator=g) == 0).numpy()
        keep &= (np.arange(rows) % 3 == 2)[:, None]
        bits = np.where(keep, values, sign)
    elif kind == "denormals":
        # Even rows: denormals of 1..5 quanta among signed zeros. Odd rows: every
        # vector (+-0, +-0, q, -q), whose Welford mean is -0 (spec.md, section 2).
        quanta = torch.randint(1, 6, (rows, head_dim), generator=g).numpy().astype(np.uint32)
        some = (torch.randint(0, 2, (rows, head_dim), generator=g) == 1).numpy()
        bits = sign | np.where(some, quanta, 0)
        column = np.arange(head_dim) % 4
        pattern = np.where(column < 2, sign, np.where(column == 2, 0x0001, 0x8001))
        odd = (np.arange(rows) % 2 == 1)[:, None]
        bits = np.where(odd, pattern, bits)
    else:
        raise ValueError(kind)
    return from_bits16(bits.reshape(-1)).reshape(shape)


def make_inputs(shape, kind, amplitude, offset, seed):
    g = torch.Generator().manual_seed(seed)
    q = make_tensor(shape, kind, amplitude, offset, g)
    k = make_tensor(shape, kind, amplitude, offset, g)
    return q.cuda(), k.cuda()


def torch_layer_norm(x, eps):
    head_dim = x.shape[-1]
    out = F.layer_norm(x, (head_dim,), eps=eps)
    _, mean, rstd = torch.native_layer_norm(x, (head_dim,), None, None, eps)
    torch.cuda.synchronize()
    return out, mean, rstd


class Run:
    """The host copies of q and k and the ctypes struct that points at them."""

    def __init__(self, q, k, eps):
        self.batch, self.tokens, self.heads, self.head_dim = q.shape
        self.q = bits16(q)
        self.k = bits16(k)
        self.problem = Problem(self.q.ctypes.data, self.k.ctypes.data, self.batch, self.tokens, self.heads,
                               self.head_dim, eps)
        self.rows = self.batch * self.tokens * self.heads

    def reference(self, lib):
        q_out = np.empty(self.rows * self.head_dim, np.uint16)
        k_out = np.empty_like(q_out)
        stats = [np.empty(self.rows, np.float32) for _ in range(4)]
        check(lib, lib.exactune_qk_reference(ctypes.byref(self.problem), q_out.ctypes.data, k_out.ctypes.data,
                                             *[s.ctypes.data for s in stats]))
        return q_out, k_out, [s.view(np.uint32) for s in stats]

    def variant(self, lib, name):
        q_out = np.empty(self.rows * self.head_dim, np.uint16)
        k_out = np.empty_like(q_out)
        check(lib, lib.exactune_qk_run_variant(ctypes.byref(self.problem), name.encode(), q_out.ctypes.data,
                                               k_out.ctypes.data))
        return q_out, k_out


def variants(lib, head_dim):
    buf = ctypes.create_string_buffer(1 << 16)
    check(lib, lib.exactune_qk_list_variants(head_dim, buf, len(buf)))
    return buf.value.decode().split()


def mismatch_report(expected, actual, head_dim, what):
    bad = np.nonzero(expected != actual)[0]
    if bad.size == 0:
        return None
    i = bad[0]
    return (f"{what}: {bad.size} of {expected.size} differ; first at row {i // head_dim}, column {i % head_dim}: "
            f"torch 0x{expected[i]:04x}, exactune 0x{actual[i]:04x}")


# (batch, tokens, heads, head_dim, eps): shapes/qk_head_layer_norm.yaml
DEFAULT_SHAPES = [
    (1, 4096, 32, 128, 1e-5), (1, 5120, 32, 128, 1e-5), (1, 37, 32, 128, 1e-5),
    (2, 1024, 70, 32, 1e-6), (1, 4608, 48, 64, 1e-6),
]
# Rows of 1, 2, 3, 24 and 25 vectors: partial chunks, idle lanes, inexact 1/count.
ODD_SHAPES = [(2, 37, 5, d, 1e-6) for d in (4, 8, 12, 96, 100)]
# (kind, amplitude, offset)
VALUE_CASES = [("normal", 1e-4, 0.0), ("normal", 1.0, 0.0), ("normal", 100.0, 0.0), ("normal", 1.0, 100.0),
               ("signed_zeros", 1.0, 0.0), ("denormals", 1.0, 0.0)]
EPSILONS = [1e-6, 1e-5]
VARIANT_TOKENS = 256  # the default shapes cut to this many tokens for the variant sweep (>= 8192 rows each)


def cut(shapes, tokens):
    """The shapes with at most `tokens` tokens, each once (GLM-Image's two cut to the same one)."""
    return list(dict.fromkeys((b, min(s, tokens), h, d, e) for b, s, h, d, e in shapes))


def cases(shapes, value_cases=VALUE_CASES, epsilons=EPSILONS):
    for batch, tokens, heads, head_dim, _ in shapes:
        for kind, amplitude, offset in value_cases:
            for eps in epsilons:
                yield pytest.param((batch, tokens, heads, head_dim), kind, amplitude, offset, eps,
                                   id=f"B{batch}_S{tokens}_H{heads}_D{head_dim}_{kind}_o{offset:g}_a{amplitude:g}"
                                      f"_e{eps:g}")


@pytest.mark.parametrize("shape,kind,amplitude,offset,eps", list(cases(DEFAULT_SHAPES + ODD_SHAPES)))
def test_reference_matches_torch(capi, shape, kind, amplitude, offset, eps):
    q, k = make_inputs(shape, kind, amplitude, offset, seed=shape[3] * 1000 + shape[1])
    run = Run(q, k, eps)
    e_q, e_k, (e_q_mean, e_q_rstd, e_k_mean, e_k_rstd) = run.reference(capi)
    head_dim = shape[3]
    problems = []
    for name, x, e_out, e_mean, e_rstd in (("q", q, e_q, e_q_mean, e_q_rstd), ("k", k, e_k, e_k_mean, e_k_rstd)):
        out, mean, rstd = torch_layer_norm(x, eps)
        problems += [r for r in (
            mismatch_report(bits16(out), e_out, head_dim, f"{name} output"),
            mismatch_report(bits32(mean), e_mean, 1, f"{name} mean"),
            mismatch_report(bits32(rstd), e_rstd, 1, f"{name} rstd"),
        ) if r]
    assert not problems, "; ".join(problems)


# Every variant on the odd shapes in every case; on the default shapes (cut to
# VARIANT_TOKENS tokens) the cases that expose order and signs of zero, at the shape's eps.
VARIANT_CASES = (list(cases(ODD_SHAPES)) +
                 [p for s in cut(DEFAULT_SHAPES, VARIANT_TOKENS)
                  for p in cases([s], [("normal", 1.0, 0.0), ("normal", 1.0, 100.0), ("denormals", 1.0, 0.0)],
                                 [s[4]])])


@pytest.mark.parametrize("shape,kind,amplitude,offset,eps", VARIANT_CASES)
def test_every_variant_matches_torch(capi, shape, kind, amplitude, offset, eps):
    q, k = make_inputs(shape, kind, amplitude, offset, seed=shape[3] * 1000 + shape[1] + 7)
    expected_q = bits16(torch_layer_norm(q, eps)[0])
    expected_k = bits16(torch_layer_norm(k, eps)[0])
    run = Run(q, k, eps)
    head_dim = shape[3]
    names = variants(capi, head_dim)
    assert names, f"no valid variant at head_dim {head_dim}"
    failures = []
    for n in names:
        got_q, got_k = run.variant(capi, n)
        failures += [r for r in (mismatch_report(expected_q, got_q, head_dim, f"{n} q"),
                                 mismatch_report(expected_k, got_k, head_dim, f"{n} k")) if r]
    assert not failures, f"{len(failures)} outputs of {len(names)} variants differ from torch:\n" + "\n".join(failures)


EXACTUNE_NOT_SERVED = 1  # exactune/runtime.h


def test_unserved_head_dims_are_refused(capi):
    """head_dim % 4 != 0 takes another aten kernel, and head_dim > 128 reaches aten's other warps: both refused.
    The buffers have the unserved size, so that nothing but the size is wrong."""
    for bad_head_dim in (62, 132):
        q, k = make_inputs((1, 1, 1, bad_head_dim), "normal", 1.0, 0.0, seed=3)
        run = Run(q, k, 1e-6)
        out = np.empty(bad_head_dim, np.uint16)
        assert capi.exactune_qk_reference(ctypes.byref(run.problem), out.ctypes.data, None, None, None, None,
                                          None) == EXACTUNE_NOT_SERVED
        assert f"head_dim {bad_head_dim}".encode() in capi.exactune_qk_last_error()
