"""exactune's torch ops on a GPU, against real torch (ci/gpu.sh runtime stage).

Bit-exact with the eager chain on every default shape, on other hidden sizes,
and on the scale/shift layouts DiT blocks pass (contiguous, (B, 1, D), strided
chunks of a (B, k*D) adaLN projection, one row for every batch); inputs the
runtime does not serve run eager without raising; CUDA-graph capture and
replay; torch.compile(fullgraph=True); a planted fault closes the gate for good
with a warning naming the first mismatch; tables overridden with an unknown
device name resolve by compute capability and SM count; the direct entry that
eager calls take gives the op's bits and hands the dispatcher what it must see;
the out= variants write the eager bits into the tensors given.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    pytest.skip("SKIPPED: no CUDA device for the torch ops' GPU tests", allow_module_level=True)

import exactune.torch as et  # noqa: E402  (after the skip: it builds the op library)
from exactune.shapes import default_shapes  # noqa: E402
from torch_op_cases import DEVICE, graph_replays_give_eagers_bits, inputs, same_bits, tables_offer  # noqa: E402


def eager_modulate(x, scale, shift, eps):
    scale = scale[:, None] if scale.dim() == 2 else scale
    shift = shift[:, None] if shift.dim() == 2 else shift
    return F.layer_norm(x, (x.shape[-1],), eps=eps) * (1 + scale) + shift


def check_fused(x, scale, shift, eps):
    """The op equals eager and ran fused (its gate verified one more signature)."""
    before = et.gate_status()
    out = et.layer_norm_modulate(x, scale, shift, eps)
    after = et.gate_status()
    assert after["enabled"], after
    assert same_bits(out, eager_modulate(x, scale, shift, eps)), et.last_variant()
    assert after["verified"] == before["verified"] + 1, "the fused path did not run: " + json.dumps(after)
    again = et.layer_norm_modulate(x, scale, shift, eps)  # the verified path, fused only
    assert same_bits(again, out)


@pytest.fixture(autouse=True)
def open_gates():
    for op in et.OPS:
        et.reset_gate(op)
    yield


@pytest.mark.parametrize("shape", default_shapes("layer_norm_modulate"), ids=lambda s: s["name"])
def test_default_shapes_bit_exact(shape):
    b, s, d, k = shape["batch"], shape["tokens"], shape["hidden"], shape["modulation_rows"]
    for amplitude in (1.0, 1e-3, 30.0):
        x, projection = inputs(b, s, d, chunks=k, amplitude=amplitude)
        shift, scale = projection[:, :d], projection[:, d:2 * d]
        check_fused(x, scale, shift, shape["eps"])
        et.reset_gate()


@pytest.mark.parametrize("batch,tokens,hidden", [(1, 27280, 3072), (2, 300, 2240), (3, 37, 64)])
def test_per_token_modulation_bit_exact(batch, tokens, hidden):
    """scale and shift (B, S, D), a row per token: chunks of a (B, S, 6, D) embedding, as Wan 2.2's adaLN gives
    them. Served fused (a batch element per token), each token with its own rows."""
    x, _ = inputs(batch, tokens, hidden)
    g = torch.Generator(device=DEVICE).manual_seed(1)
    embedding = (0.5 * torch.randn(batch, tokens, 6, hidden, generator=g, device=DEVICE)).to(torch.bfloat16)
    shift, scale = embedding[:, :, 0], embedding[:, :, 1]
    check_fused(x, scale, shift, 1e-6)
    # A scale row per token and a shift row per batch element: not one layout, so eager, still exact.
    out = et.layer_norm_modulate(x, scale, embedding[:, 0, 0], 1e-6)
    assert same_bits(out, eager_modulate(x, scale, embedding[:, 0, 0], 1e-6))


@pytest.mark.parametrize("hidden", [4, 8, 64, 400, 1000, 2244, 4100, 5120, 8192])
def test_other_hidden_sizes_bit_exact(hidden):
    x, projection = inputs(2, 77, hidden)
    check_fused(x, projection[:, :hidden], projection[:, hidden:2 * hidden], 1e-6)


@pytest.mark.parametrize("chunks", [2, 3, 6])
@pytest.mark.parametrize("form", ["chunk_2d", "chunk_3d", "contiguous_2d", "contiguous_3d", "shared_row"])
def test_scale_shift_layouts_bit_exact(chunks, form):
    d = 2240
    x, projection = inputs(3, 45, d, chunks=chunks)
    if form == "chunk_2d":
        parts = projection.chunk(chunks, dim=1)
        shift, scale = parts[0], parts[-1]
    elif form == "chunk_3d":
        parts = projection[:, None].chunk(chunks, dim=2)
        shift, scale = parts[0], parts[1]
    elif form == "contiguous_2d":
        shift, scale = projection[:, :d].contiguous(), projection[:, d:2 * d].contiguous()
    elif form == "contiguous_3d":
        shift, scale = projection[:, None, :d].contiguous(), projection[:, None, d:2 * d].contiguous()
    else:  # one row for every batch
        shift, scale = projection[:1, :d], projection[:1, d:2 * d]
    check_fused(x, scale, shift, 1e-6)


def test_unserved_inputs_run_eager_without_raising():
    d = 2240
    x, projection = inputs(2, 33, d)
    shift, scale = projection[:, :d], projection[:, d:2 * d]
    padded = torch.empty(2 * 33 * d + 1, dtype=torch.bfloat16, device=DEVICE)
    misaligned = padded[1:].view(2, 33, d)
    misaligned.copy_(x)
    cases = {
        "float32": (x.float(), scale.float(), shift.float()),
        "cpu": (x.cpu(), scale.cpu(), shift.cpu()),
        "misaligned x": (misaligned, scale, shift),
        "odd scale offset": (x, projection[:, 1:d + 1], shift),
        "non-contiguous x": (x.transpose(0, 1).contiguous().transpose(0, 1), scale, shift),
        "x with tokens strided by 2": (x[:, ::2], scale, shift),
    }
    for hidden in (62, 8196):
        xx, pp = inputs(1, 9, hidden)
        cases[f"hidden {hidden}"] = (xx, pp[:, :hidden], pp[:, hidden:2 * hidden])
    for name, (xx, sc, sh) in cases.items():
        out = et.layer_norm_modulate(xx, sc, sh, 1e-6)
        assert same_bits(out, eager_modulate(xx, sc, sh, 1e-6)), name
    status = et.gate_status()
    assert status["enabled"] and status["verified"] == 0 and status["failures"] == 0, status


def test_high_rank_inputs_run_eager_and_leave_the_op_serving():
    # A video DiT's 5-D x, scale and shift fill the op's signature (41 values
    # for 40 slots: eps used to land on the count): they run eager, bit-exact,
    # and the op's gate stays open.
    g = torch.Generator(device=DEVICE).manual_seed(5)
    x = torch.randn(2, 3, 4, 5, 64, generator=g, device=DEVICE).to(torch.bfloat16)
    scale = (0.5 * torch.randn(2, 1, 1, 1, 64, generator=g, device=DEVICE)).to(torch.bfloat16)
    shift = (0.5 * torch.randn(2, 1, 1, 1, 64, generator=g, device=DEVICE)).to(torch.bfloat16)
    for _ in range(3):
        out = et.layer_norm_modulate(x, scale, shift, 1e-6)
        assert same_bits(out, eager_modulate(x, scale, shift, 1e-6))
    status = et.gate_status()
    assert status["enabled"] and status["verified"] == 0 and status["failures"] == 0, status


def token_major(x):
    """x's values as Sana holds them: y.permute(0, 2, 1) of a contiguous (B, D, S) y."""
    return x.transpose(1, 2).contiguous().transpose(1, 2)


@pytest.mark.parametrize("shape", default_shapes("layer_norm_modulate_token_major"), ids=lambda s: s["name"])
def test_token_major_x_is_read_in_place_where_the_tables_choose_an_in_place_read(shape):
    """Bit-exact on every token-major default shape; fused by an in-place variant (tile or lanes), or (where the
    tables serve nothing for this GPU, size and rows) the eager chain. Wherever the tables serve the shape on this
    GPU, whatever its name, the fused path must run: the tables choose in-place reads only."""
    b, s, d, k = shape["batch"], shape["tokens"], shape["hidden"], shape["modulation_rows"]
    resolved, offered = tables_offer("layer_norm_modulate_token_major", d, b * s)
    # A copy variant (the global default's) cannot run in the runtime, which holds no buffer for x's copy.
    # Only a verified one is launched.
    in_place = [c.variant for c in offered if c.verified and c.variant.startswith(("tile", "lanes"))]
    served = bool(in_place)
    for amplitude in (1.0, 1e-3, 30.0):
        x, projection = inputs(b, s, d, chunks=k, amplitude=amplitude)
        x = token_major(x)
        assert x.stride() == (s * d, 1, s)
        shift, scale = projection[:, :d], projection[:, d:2 * d]
        before = et.gate_status()
        out = et.layer_norm_modulate(x, scale, shift, shape["eps"])
        after = et.gate_status()
        assert after["enabled"], after
        assert out.is_contiguous()
        assert same_bits(out, eager_modulate(x, scale, shift, shape["eps"]))
        fused = after["verified"] == before["verified"] + 1
        if fused:
            assert et.last_variant().startswith(("tile", "lanes")), et.last_variant()
        if served:
            assert fused, f"the tables serve {shape['name']} on this GPU ({resolved}: {in_place[0]}), " \
                "yet the eager chain ran: " + json.dumps(after)
        et.reset_gate()


def test_cuda_graph_capture_and_replay():
    assert graph_replays_give_eagers_bits(et.layer_norm_modulate, eager_modulate)
    assert et.gate_status()["enabled"]


def test_unverified_signature_under_capture_runs_eager():
    d = 2240
    x, projection = inputs(2, 100, d)
    shift, scale = projection[:, :d], projection[:, d:2 * d]
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        eager_modulate(x, scale, shift, 1e-6)  # warm the eager kernels up outside capture
        torch.cuda.current_stream().synchronize()
        with torch.cuda.graph(graph):
            out = et.layer_norm_modulate(x, scale, shift, 1e-6)
    torch.cuda.current_stream().wait_stream(stream)
    graph.replay()
    torch.cuda.synchronize()
    assert same_bits(out, eager_modulate(x, scale, shift, 1e-6))
    assert et.gate_status()["verified"] == 0


def test_torch_compile_fullgraph():
    # The op's own output: inductor fuses the block's other elementwise ops in
    # float32, which changes their bits whatever the op does.
    d = 2240

    def modulate(x, projection):
        shift, scale, gate = projection.chunk(3, dim=1)
        return et.layer_norm_modulate(x, scale, shift, 1e-6), gate

    compiled = torch.compile(modulate, fullgraph=True)
    for tokens in (1024, 77):
        x, projection = inputs(2, tokens, d, chunks=3)
        out, _ = compiled(x, projection)
        shift, scale, _ = projection.chunk(3, dim=1)
        assert same_bits(out, eager_modulate(x, scale, shift, 1e-6))
    status = et.gate_status()
    assert status["enabled"] and status["verified"] >= 1, status


def run_python(code, **env):
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**os.environ, **env})
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_planted_fault_closes_the_gate_for_good_with_the_first_mismatch():
    # A fresh process: EXACTUNE_PLANTED_FAULT=2 compiles every served kernel
    # without the bf16 rounding of (1 + scale) * y, in a cache of its own.
    code = """
import torch, torch.nn.functional as F
import exactune.torch as et
x = torch.randn(2, 64, 2240, device="cuda").to(torch.bfloat16)
p = torch.randn(2, 6 * 2240, device="cuda").to(torch.bfloat16)
scale, shift = p[:, :2240], p[:, 2240:4480]
eager = F.layer_norm(x, (2240,), eps=1e-6) * (1 + scale[:, None]) + shift[:, None]
first = et.layer_norm_modulate(x, scale, shift, 1e-6)
second = et.layer_norm_modulate(x, scale, shift, 1e-6)
other = et.layer_norm_modulate(x[:, :7], scale, shift, 1e-6)
assert torch.equal(first, eager) and torch.equal(second, eager), "the wrong bits were returned"
assert torch.equal(other, F.layer_norm(x[:, :7], (2240,), eps=1e-6) * (1 + scale[:, None]) + shift[:, None])
status = et.gate_status()
assert not status["enabled"] and status["verified"] == 0, status
print(status["disabled_because"])
"""
    result = run_python(code, EXACTUNE_PLANTED_FAULT="2", EXACTUNE_CACHE_DIR="/tmp/exactune-planted-fault-cache")
    reason = result.stdout.strip()
    assert "differs from the eager chain at row " in reason and ", column " in reason and "elements differ" in reason
    # torch's warning (c10::Warning, printed by torch's handler), once, naming the first mismatch.
    warnings = [line for line in result.stderr.splitlines() if "fused path disabled for good" in line]
    assert len(warnings) == 1, result.stderr
    assert reason in warnings[0]


def test_tables_resolve_an_unknown_device_name(tmp_path):
    tables = json.loads(Path(et._native.source_dir(), "reports/tables/exactune_tables.json").read_text())
    name = torch.cuda.get_device_name()
    # The table of this GPU under a name the driver never reports, with the
    # evidence it holds (its sweeps, its own record) under that name too.
    for family in tables["families"]:
        for entry in family["devices"] + family["verified"]:
            for key in ("name", "device"):
                if entry.get(key) == name:
                    entry[key] = "Renamed GPU"
    (tmp_path / "exactune_tables.json").write_text(json.dumps(tables))
    code = """
import torch, torch.nn.functional as F
import exactune.torch as et
x = torch.randn(2, 300, 2240, device="cuda").to(torch.bfloat16)
p = torch.randn(2, 6 * 2240, device="cuda").to(torch.bfloat16)
scale, shift = p[:, :2240], p[:, 2240:4480]
out = et.layer_norm_modulate(x, scale, shift, 1e-6)
assert torch.equal(out, F.layer_norm(x, (2240,), eps=1e-6) * (1 + scale[:, None]) + shift[:, None])
assert et.gate_status()["verified"] == 1
print(et.last_variant())
"""
    result = run_python(code, EXACTUNE_TABLES_DIR=str(tmp_path))
    assert "no table under this name; same compute capability and SM count" in result.stderr, result.stderr
    assert "(tuned bucket)" in result.stdout


def test_the_direct_entry_gives_the_ops_bits_and_hands_the_dispatcher_what_it_must_see():
    from torch.utils._python_dispatch import TorchDispatchMode

    x, projection = inputs(2, 77, 2240)
    scale, shift = projection[:, :2240], projection[:, 2240:4480]
    op = torch.ops.exactune.layer_norm_modulate.default
    assert et.layer_norm_modulate is not op  # eager calls skip the dispatcher
    assert same_bits(et.layer_norm_modulate(x, scale, shift, 1e-6), op(x, scale, shift, 1e-6))
    q = k = x.view(2, 77, 35, 64)
    assert all(same_bits(a, b) for a, b in zip(et.qk_head_layer_norm(q, k, 1e-6),
                                               torch.ops.exactune.qk_head_layer_norm.default(q, k, 1e-6)))

    # A Python mode sees the op: the direct entry went through the dispatcher.
    class Seen(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.calls = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.calls.append(str(func))
            return func(*args, **(kwargs or {}))

    with Seen() as seen:
        et.layer_norm_modulate(x, scale, shift, 1e-6)
    assert any("exactune.layer_norm_modulate" in call for call in seen.calls), seen.calls
    # Autograd is the dispatcher's: the direct entry answers as the op does.
    wants_grad = x.clone().requires_grad_()

    def answer(fn):
        try:
            return fn(wants_grad, scale, shift, 1e-6).requires_grad
        except RuntimeError as error:
            return f"raised: {error}".split("\n")[0]

    assert answer(et.layer_norm_modulate) == answer(op)
    # CPU tensors run the eager chain.
    cpu = [t.cpu() for t in (x, scale, shift)]
    assert same_bits(et.layer_norm_modulate(*cpu, 1e-6), eager_modulate(*cpu, 1e-6))


def test_out_variants_write_the_eager_bits_where_asked():
    x, projection = inputs(2, 300, 2240, seed=5)
    scale, shift = projection[:, :2240], projection[:, 2240:4480]
    expected = eager_modulate(x, scale, shift, 1e-6)
    # A contiguous out: the fused kernel writes it, verified as a signature of its own.
    before = et.gate_status()["verified"]
    out = torch.empty_like(x)
    assert et.layer_norm_modulate(x, scale, shift, 1e-6, out=out) is out
    assert same_bits(out, expected)
    assert et.gate_status()["verified"] == before + 1
    out.zero_()
    assert et.layer_norm_modulate(x, scale, shift, 1e-6, out=out) is out and same_bits(out, expected)
    # An out of another layout, and one that is x itself: the result is copied in.
    strided = torch.empty(2, 2240, 300, dtype=torch.bfloat16, device=DEVICE).permute(0, 2, 1)
    assert same_bits(et.layer_norm_modulate(x, scale, shift, 1e-6, out=strided), expected)
    in_place = x.clone()
    et.layer_norm_modulate(in_place, scale, shift, 1e-6, out=in_place)
    assert same_bits(in_place, expected)
    with pytest.raises(RuntimeError, match="must have the shape, dtype and device of the result"):
        et.layer_norm_modulate(x, scale, shift, 1e-6, out=torch.empty_like(x[:, :7]))
    # Through the dispatcher too (what torch.compile calls).
    out.zero_()
    torch.ops.exactune.layer_norm_modulate.out(x, scale, shift, 1e-6, out=out)
    assert same_bits(out, expected)

    q = (torch.randn(2, 77, 24, 128, device=DEVICE) + 0.5).to(torch.bfloat16)
    k = (torch.randn(2, 77, 24, 128, device=DEVICE) - 0.5).to(torch.bfloat16)
    pair = (torch.empty_like(q), torch.empty_like(k))
    q_out, k_out = et.qk_head_layer_norm(q, k, 1e-6, out=pair)
    assert q_out is pair[0] and k_out is pair[1]
    assert same_bits(q_out, F.layer_norm(q, (128,), eps=1e-6)) and same_bits(k_out, F.layer_norm(k, (128,), eps=1e-6))
    assert et.gate_status("qk_head_layer_norm")["enabled"]


@pytest.mark.parametrize("shape", default_shapes("qk_head_layer_norm"), ids=lambda s: s["name"])
def test_qk_default_shapes_bit_exact(shape):
    size = (shape["batch"], shape["tokens"], shape["heads"], shape["head_dim"])
    g = torch.Generator(device=DEVICE).manual_seed(1)
    q = torch.randn(size, generator=g, device=DEVICE).to(torch.bfloat16)
    k = (3 * torch.randn(size, generator=g, device=DEVICE) + 1).to(torch.bfloat16)
    q_out, k_out = et.qk_head_layer_norm(q, k, shape["eps"])
    d = shape["head_dim"]
    assert same_bits(q_out, F.layer_norm(q, (d,), eps=shape["eps"]))
    assert same_bits(k_out, F.layer_norm(k, (d,), eps=shape["eps"]))
    assert et.gate_status("qk_head_layer_norm")["verified"] == 1


def test_qk_unserved_runs_eager():
    q = torch.randn(1, 16, 8, 130, device=DEVICE).to(torch.bfloat16)
    k = torch.randn(1, 16, 8, 130, device=DEVICE).to(torch.bfloat16)
    q_out, k_out = et.qk_head_layer_norm(q, k, 1e-5)
    assert same_bits(q_out, F.layer_norm(q, (130,), eps=1e-5))
    qt = torch.randn(1, 8, 16, 64, device=DEVICE).to(torch.bfloat16).transpose(1, 2)
    q_out, k_out = et.qk_head_layer_norm(qt, qt, 1e-5)
    assert same_bits(k_out, F.layer_norm(qt, (64,), eps=1e-5))
    assert et.gate_status("qk_head_layer_norm")["verified"] == 0
