"""exactune.torch.gated_residual_layer_norm_modulate on a GPU, against real
torch (ci/gpu.sh runtime stage): both outputs, the residual stream
x + gate * h and the next adaLN site's LN(residual) * (1 + scale) + shift,
bit-exact with eager on every default shape and with per-token rows; fused
wherever the committed tables serve this GPU, size and rows, else eager;
layouts the kernel does not take run eager, still exact; CUDA-graph replay;
torch.compile(fullgraph=True) takes the op.
"""

import json

import pytest
import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    pytest.skip("SKIPPED: no CUDA device for the gated residual op's GPU tests", allow_module_level=True)

import exactune.torch as et  # noqa: E402  (after the skip: it builds the op library)
from exactune.shapes import default_shapes  # noqa: E402
from torch_op_cases import DEVICE, inputs, same_bits, tables_serve  # noqa: E402

OP = "gated_residual_layer_norm_modulate"


def eager(x, h, gate, scale, shift, eps):
    """The chain as a DiT block writes it: two eager ops for the residual, then the norm and modulate."""
    rows = (lambda t: t[:, None]) if gate.dim() == 2 else (lambda t: t)
    residual = x + rows(gate) * h
    return residual, F.layer_norm(residual, (x.shape[-1],), eps=eps) * (1 + rows(scale)) + rows(shift)


def site(batch, tokens, hidden, chunks=6, amplitude=1.0, seed=0):
    """x, h and the shift, scale and gate rows (chunks 0, 1 and 2 of one adaLN projection)."""
    x, projection = inputs(batch, tokens, hidden, chunks=chunks, amplitude=amplitude, seed=seed)
    h, _ = inputs(batch, tokens, hidden, chunks=1, seed=seed + 100)
    shift, scale, gate = (projection[:, i * hidden:(i + 1) * hidden] for i in range(3))
    return x, h, gate, scale, shift


def check(x, h, gate, scale, shift, eps, served):
    """Both outputs equal eager's bits; the fused path ran exactly when `served`."""
    before = et.gate_status(OP)
    residual, y = et.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps)
    after = et.gate_status(OP)
    assert after["enabled"], after
    want_residual, want_y = eager(x, h, gate, scale, shift, eps)
    assert same_bits(residual, want_residual), et.last_variant(OP)
    assert same_bits(y, want_y), et.last_variant(OP)
    fused = after["verified"] == before["verified"] + 1
    assert fused == served, f"served by the tables: {served}, ran fused: {fused} ({json.dumps(after)})"
    if fused:
        again = et.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, eps)  # verified: fused only
        assert same_bits(again[0], residual) and same_bits(again[1], y)


@pytest.fixture(autouse=True)
def open_gate():
    et.reset_gate(OP)
    yield


@pytest.mark.parametrize("shape", default_shapes(OP), ids=lambda s: s["name"])
def test_default_shapes_bit_exact(shape):
    b, s, d, k = shape["batch"], shape["tokens"], shape["hidden"], shape["modulation_rows"]
    served = tables_serve(OP, d, b * s)
    for amplitude in (1.0, 1e-3, 30.0):
        check(*site(b, s, d, chunks=k, amplitude=amplitude), shape["eps"], served)
        et.reset_gate(OP)


@pytest.mark.parametrize("batch,tokens,hidden", [(1, 4096, 3072), (2, 300, 2240), (3, 37, 64)])
def test_per_token_rows_bit_exact(batch, tokens, hidden):
    """gate, scale and shift (B, S, D): chunks of a (B, S, 6, D) embedding, a row per token."""
    x, h, _, _, _ = site(batch, tokens, hidden)
    g = torch.Generator(device=DEVICE).manual_seed(3)
    embedding = (0.5 * torch.randn(batch, tokens, 6, hidden, generator=g, device=DEVICE)).to(torch.bfloat16)
    shift, scale, gate = embedding[:, :, 0], embedding[:, :, 1], embedding[:, :, 2]
    check(x, h, gate, scale, shift, 1e-6, tables_serve(OP, hidden, batch * tokens))


def test_layouts_the_kernel_does_not_take_run_eager_and_exact():
    d = 2240
    x, h, gate, scale, shift = site(2, 45, d)
    # gate in a tensor of its own: a row stride other than scale's and shift's.
    check(x, h, gate.contiguous(), scale, shift, 1e-6, served=False)
    # h not contiguous.
    h_strided = torch.empty(2, 45, 2 * d, dtype=torch.bfloat16, device=DEVICE)[:, :, :d].copy_(h)
    check(x, h_strided, gate, scale, shift, 1e-6, served=False)
    # Not bf16.
    check(x.float(), h.float(), gate.float(), scale.float(), shift.float(), 1e-6, served=False)
    assert et.gate_status(OP)["enabled"]


def test_cuda_graph_capture_and_replay():
    b, s, d = 1, 4096, 3072
    x, h, gate, scale, shift = site(b, s, d)
    served = tables_serve(OP, d, b * s)
    check(x, h, gate, scale, shift, 1e-6, served)  # verified outside capture
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.cuda.graph(graph):
        residual, y = et.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, 1e-6)
    torch.cuda.current_stream().wait_stream(stream)
    for seed in (1, 2):
        fresh = site(b, s, d, seed=seed)
        for target, source in zip((x, h, gate, scale, shift), fresh):
            target.copy_(source)
        graph.replay()
        torch.cuda.synchronize()
        want_residual, want_y = eager(x, h, gate, scale, shift, 1e-6)
        assert same_bits(residual, want_residual) and same_bits(y, want_y)
    assert et.gate_status(OP)["enabled"]


def test_torch_compile_fullgraph():
    x, h, gate, scale, shift = site(2, 100, 2240)

    def block_tail(x, h, gate, scale, shift):
        return et.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, 1e-6)

    compiled = torch.compile(block_tail, fullgraph=True)
    residual, y = compiled(x, h, gate, scale, shift)
    want_residual, want_y = eager(x, h, gate, scale, shift, 1e-6)
    assert same_bits(residual, want_residual) and same_bits(y, want_y)
