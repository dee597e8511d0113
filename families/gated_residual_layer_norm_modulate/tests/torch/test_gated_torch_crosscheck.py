"""exactune's gated residual family against real PyTorch, bit for bit, on the GPU machine.

PyTorch runs the DiT block's eager ops
    r = x + gate * h;  out = F.layer_norm(r, (D,), eps=eps) * (1 + scale) + shift
with gate, scale and shift strided rows of a (B, 6, D) adaLN embedding.
exactune's reference must reproduce r and out, and every fused variant of a
pairwise cover of the space both outputs. The spec's roundings of the residual
(spec.md, section 1) are checked against torch itself too, and that addcmul, the
one-rounding chain this family does not serve, gives other bits. exactune is
reached through its C ABI (capi/exactune_gated_residual_capi.h), whose path
comes in EXACTUNE_CAPI (ci/gpu.sh sets it).
"""
import ctypes
import os
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "layer_norm_modulate", "tests", "torch"))
from modulate_problem import Problem, bits16, check, mismatch_report, open_capi  # noqa: E402

from gated_inputs import EMBEDDING_ROWS, GATE_ROW, SCALE_ROW, SHIFT_ROW, make_inputs  # noqa: E402


class GatedProblem(ctypes.Structure):
    _fields_ = [("modulate", Problem), ("h", ctypes.c_void_p), ("gate_offset", ctypes.c_int64)]


@pytest.fixture(scope="module")
def capi():
    lib = open_capi()
    problem, ptr = ctypes.POINTER(GatedProblem), ctypes.c_void_p
    lib.exactune_gated_residual_reference.argtypes = [problem, ptr, ptr]
    lib.exactune_gated_residual_list_covering_variants.argtypes = [ctypes.c_int32, ctypes.c_char_p, ctypes.c_size_t]
    lib.exactune_gated_residual_run_variant.argtypes = [problem, ctypes.c_char_p, ptr, ptr]
    for f in (lib.exactune_gated_residual_reference, lib.exactune_gated_residual_list_covering_variants,
              lib.exactune_gated_residual_run_variant):
        f.restype = ctypes.c_int
    return lib


def row(emb, k):
    return emb[:, k : k + 1, :]  # a strided view, as the blocks chunk their embedding


def torch_chain(x, h, emb, eps):
    r = x + row(emb, GATE_ROW) * h
    out = F.layer_norm(r, (x.shape[-1],), eps=eps) * (1 + row(emb, SCALE_ROW)) + row(emb, SHIFT_ROW)
    torch.cuda.synchronize()
    return r, out


class Run:
    """The host copies of one problem and the ctypes struct that points at them."""

    def __init__(self, x, h, emb, eps):
        self.batch, self.tokens, self.hidden = x.shape
        self.x, self.h, self.emb = bits16(x), bits16(h), bits16(emb)
        modulate = Problem(self.x.ctypes.data, self.emb.ctypes.data, self.emb.size, SCALE_ROW * self.hidden,
                           SHIFT_ROW * self.hidden, EMBEDDING_ROWS * self.hidden, self.batch, self.tokens,
                           self.hidden, eps)
        self.problem = GatedProblem(modulate, self.h.ctypes.data, GATE_ROW * self.hidden)
        self.elements = self.batch * self.tokens * self.hidden

    def reference(self, lib):
        r, out = np.empty(self.elements, np.uint16), np.empty(self.elements, np.uint16)
        check(lib, lib.exactune_gated_residual_reference(ctypes.byref(self.problem), r.ctypes.data, out.ctypes.data))
        return r, out

    def variant(self, lib, name):
        r, out = np.empty(self.elements, np.uint16), np.empty(self.elements, np.uint16)
        check(lib, lib.exactune_gated_residual_run_variant(ctypes.byref(self.problem), name.encode(), r.ctypes.data,
                                                           out.ctypes.data))
        return r, out


def covering_variants(lib, hidden):
    buf = ctypes.create_string_buffer(1 << 16)
    check(lib, lib.exactune_gated_residual_list_covering_variants(hidden, buf, len(buf)))
    return buf.value.decode().split()


def bf16_round(values):
    """float32 array -> bf16 bits, nearest even (NaN never arises from these inputs)."""
    u = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


DEFAULT_SHAPES = [  # (batch, tokens, hidden, eps): shapes/gated_residual_layer_norm_modulate.yaml
    (1, 4096, 3072, 1e-6), (2, 4096, 1536, 1e-6), (2, 1024, 2240, 1e-6), (1, 32760, 5120, 1e-6), (2, 37, 72, 1e-5),
]
ODD_HIDDEN = [(2, 37, d, 1e-6) for d in (4, 64, 400, 1000, 2244, 8192)]
AMPLITUDES = [(1e-4, 0.0), (1.0, 0.0), (100.0, 0.0), (1.0, 100.0)]  # (amplitude, offset)


def cases(shapes, amplitudes=AMPLITUDES):
    for batch, tokens, hidden, eps in shapes:
        for amplitude, offset in amplitudes:
            yield pytest.param(batch, tokens, hidden, amplitude, offset, eps,
                               id=f"B{batch}_S{tokens}_D{hidden}_o{offset:g}_a{amplitude:g}_e{eps:g}")


@pytest.mark.parametrize("batch,tokens,hidden,amplitude,offset,eps", list(cases(ODD_HIDDEN[:3])))
def test_eager_residual_is_two_roundings_not_addcmul(batch, tokens, hidden, amplitude, offset, eps):
    """torch's x + gate * h is bf16(fp32(x) + fp32(bf16(gate * h))), as spec.md says; addcmul is another chain."""
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    x, h, emb = make_inputs(batch, tokens, hidden, amplitude, seed=hidden * 31 + tokens, offset=offset)
    gate = row(emb, GATE_ROW).expand_as(h)
    r = bits16(x + gate * h)
    p = bf16_round(bf16_value(bits16(gate)) * bf16_value(bits16(h)))
    expected = bf16_round(bf16_value(bits16(x)) + bf16_value(p))
    report = mismatch_report(expected, r, hidden, "x + gate * h against the spec's two roundings")
    assert report is None, report
    if offset == 0:  # gate * h as large as x: its rounding shows in the sum
        addcmul = bits16(torch.addcmul(x, gate, h))
        assert (addcmul != r).any(), "addcmul gave eager's bits everywhere: the chains did not differ"


@pytest.mark.parametrize("batch,tokens,hidden,amplitude,offset,eps", list(cases(DEFAULT_SHAPES + ODD_HIDDEN)))
def test_reference_matches_torch(capi, batch, tokens, hidden, amplitude, offset, eps):
    x, h, emb = make_inputs(batch, tokens, hidden, amplitude, seed=hidden * 1000 + tokens, offset=offset)
    r, out = torch_chain(x, h, emb, eps)
    e_r, e_out = Run(x, h, emb, eps).reference(capi)
    problems = [p for p in (mismatch_report(bits16(r), e_r, hidden, "r"),
                            mismatch_report(bits16(out), e_out, hidden, "out")) if p]
    assert not problems, "; ".join(problems)


# A pairwise cover of the variants on every small shape and case; on the large
# default shapes, unit amplitude and the offset that exposes order.
VARIANT_CASES = list(cases(ODD_HIDDEN)) + list(cases(DEFAULT_SHAPES, [(1.0, 0.0), (1.0, 100.0)]))


@pytest.mark.parametrize("batch,tokens,hidden,amplitude,offset,eps", VARIANT_CASES)
def test_covering_variants_match_torch(capi, batch, tokens, hidden, amplitude, offset, eps):
    x, h, emb = make_inputs(batch, tokens, hidden, amplitude, seed=hidden * 1000 + tokens + 7, offset=offset)
    r, out = (bits16(t) for t in torch_chain(x, h, emb, eps))
    run = Run(x, h, emb, eps)
    names = covering_variants(capi, hidden)
    assert names, f"no valid variant at hidden {hidden}"
    failures = []
    for name in names:
        v_r, v_out = run.variant(capi, name)
        failures += [p for p in (mismatch_report(r, v_r, hidden, f"{name} r"),
                                 mismatch_report(out, v_out, hidden, f"{name} out")) if p]
    assert not failures, f"{len(failures)} outputs of {len(names)} variants differ from torch:\n" + "\n".join(failures)
