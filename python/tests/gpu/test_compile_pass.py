"""exactune's opt-in torch.compile pass on a GPU (exactune.compile_pass): the
eager adaLN chain, the gated residual before it and the per-head q/k layer
norms, written as a model writes them, compile to graphs that call exactune's
ops and give eager's bits, with static sizes and with symbolic ones
(torch.compile's dynamic shapes, automatic at a second shape, and
dynamic=True); so do the DiT examples whose adaLN sites are compiled with the
pass; what the ops do not serve (an affine LayerNorm, fp32, a broadcast h) is
left as it is.
"""

import sys
from pathlib import Path
from unittest import mock

import pytest
import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    pytest.skip("SKIPPED: no CUDA device for the compile pass's GPU tests", allow_module_level=True)

from torch._inductor.graph import GraphLowering  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402

import exactune.torch as et  # noqa: E402
from exactune import compile_pass  # noqa: E402
from torch_op_cases import DEVICE, same_bits  # noqa: E402


@pytest.fixture
def with_pass():
    torch._dynamo.reset()
    et.enable_compile_pass()
    yield
    et.disable_compile_pass()
    torch._dynamo.reset()


@pytest.fixture
def symbolic_graphs(monkeypatch):
    """Whether each graph the pass rewrites from now on has symbolic sizes, in order."""
    seen = []
    rewrite = compile_pass.rewrite

    def recording(graph):
        seen.append(any(isinstance(compile_pass._value(node), torch.SymInt)
                        for node in graph.nodes if node.op == "placeholder"))
        return rewrite(graph)

    monkeypatch.setattr(compile_pass, "rewrite", recording)
    return seen


def run_and_get_new_code(fn, *args):
    """run_and_get_code without its torch._dynamo.reset(), which would forget the shapes fn has seen (and so
    compile a second shape with static sizes again): fn's result and the code Inductor wrote for this call."""
    code = []

    def save_output_code(text):
        code.append(text)

    with mock.patch.object(GraphLowering, "save_output_code", save_output_code):
        result = fn(*args)
    return result, "\n".join(code)


# The sizes the dynamic tests compile at: Sana's block, then FLUX's, which torch.compile (dynamic=None)
# compiles again with its tokens and hidden size as symbols (its batch of 1 stays a number).
SANA, FLUX = (2, 1024, 2240), (1, 4608, 3072)
# Each dynamic test compiles twice: automatically dynamic (Sana's graph static, FLUX's symbolic), and with
# dynamic=True (both symbolic, the batch too).
DYNAMIC = {None: [False, True], True: [True, True]}


def adaln(x, projection):
    # As DiT blocks write it: chunks of an adaLN projection, broadcast over tokens.
    shift, scale, gate = projection.chunk(3, dim=1)
    return F.layer_norm(x, (x.shape[-1],), eps=1e-6) * (1 + scale[:, None]) + shift[:, None], gate


def qk_norms(q, k):
    return F.layer_norm(q, (q.shape[-1],), eps=1e-6), F.layer_norm(k, (k.shape[-1],), eps=1e-6)


def test_the_adaln_chain_compiles_to_the_op_with_eagers_bits(with_pass):
    g = torch.Generator(device=DEVICE).manual_seed(3)
    x = torch.randn(2, 1024, 2240, generator=g, device=DEVICE).to(torch.bfloat16)
    projection = (0.5 * torch.randn(2, 3 * 2240, generator=g, device=DEVICE)).to(torch.bfloat16)
    (out, _), code = run_and_get_code(torch.compile(adaln, fullgraph=True), x, projection)
    assert "exactune.layer_norm_modulate" in "\n".join(code)
    assert compile_pass.rewrites["layer_norm_modulate"] == 1
    eager, _ = adaln(x, projection)
    assert same_bits(out, eager)


@pytest.mark.parametrize("dynamic", DYNAMIC)
def test_the_adaln_chain_compiles_to_the_op_with_symbolic_sizes(with_pass, symbolic_graphs, dynamic):
    g = torch.Generator(device=DEVICE).manual_seed(6)
    f = torch.compile(adaln, fullgraph=True, dynamic=dynamic)
    for batch, tokens, hidden in (SANA, FLUX):
        x = torch.randn(batch, tokens, hidden, generator=g, device=DEVICE).to(torch.bfloat16)
        projection = (0.5 * torch.randn(batch, 3 * hidden, generator=g, device=DEVICE)).to(torch.bfloat16)
        (out, _), code = run_and_get_new_code(f, x, projection)
        assert "exactune.layer_norm_modulate" in code
        eager, _ = adaln(x, projection)
        assert same_bits(out, eager)
    assert symbolic_graphs == DYNAMIC[dynamic]
    assert compile_pass.rewrites["layer_norm_modulate"] == 2


def qk_of_qkv(qkv):
    # q and k as one projection gives them: views of it, their sizes one expression under dynamic shapes.
    batch, tokens, _ = qkv.shape
    q, k, _ = qkv.view(batch, tokens, 3, -1, 128).unbind(2)
    return qk_norms(q, k)


@pytest.mark.parametrize("dynamic", DYNAMIC)
def test_the_qk_norms_compile_to_the_op_with_symbolic_sizes(with_pass, symbolic_graphs, dynamic):
    g = torch.Generator(device=DEVICE).manual_seed(7)
    f = torch.compile(qk_of_qkv, fullgraph=True, dynamic=dynamic)
    for batch, tokens, heads in ((2, 1024, 16), (1, 4608, 24)):
        qkv = torch.randn(batch, tokens, 3 * heads * 128, generator=g, device=DEVICE).to(torch.bfloat16)
        (q_out, k_out), code = run_and_get_new_code(f, qkv)
        assert "exactune.qk_head_layer_norm" in code
        q_eager, k_eager = qk_of_qkv(qkv)
        assert same_bits(q_out, q_eager) and same_bits(k_out, k_eager)
    assert symbolic_graphs == DYNAMIC[dynamic]
    assert compile_pass.rewrites["qk_head_layer_norm"] == 2


def test_the_qk_norms_compile_to_the_op_with_eagers_bits(with_pass):
    g = torch.Generator(device=DEVICE).manual_seed(4)
    q = torch.randn(1, 4096, 32, 128, generator=g, device=DEVICE).to(torch.bfloat16)
    k = (torch.randn(1, 4096, 32, 128, generator=g, device=DEVICE) + 0.5).to(torch.bfloat16)
    (q_out, k_out), code = run_and_get_code(torch.compile(qk_norms, fullgraph=True), q, k)
    assert "exactune.qk_head_layer_norm" in "\n".join(code)
    assert compile_pass.rewrites["qk_head_layer_norm"] == 1
    q_eager, k_eager = qk_norms(q, k)
    assert same_bits(q_out, q_eager) and same_bits(k_out, k_eager)


def gated_site(x, h, projection):
    # As DiT blocks write the attention's gated residual and the next adaLN site.
    shift, scale, gate = projection.chunk(3, dim=1)
    x = x + gate[:, None] * h
    return x, F.layer_norm(x, (x.shape[-1],), eps=1e-6) * (1 + scale[:, None]) + shift[:, None]


def test_the_gated_chain_compiles_to_the_gated_op_with_eagers_bits(with_pass):
    g = torch.Generator(device=DEVICE).manual_seed(5)
    x, h = (torch.randn(1, 4608, 3072, generator=g, device=DEVICE).to(torch.bfloat16) for _ in range(2))
    projection = (0.5 * torch.randn(1, 3 * 3072, generator=g, device=DEVICE)).to(torch.bfloat16)
    (residual, y), code = run_and_get_code(torch.compile(gated_site, fullgraph=True), x, h, projection)
    assert "exactune.gated_residual_layer_norm_modulate" in "\n".join(code)
    assert compile_pass.rewrites["gated_residual_layer_norm_modulate"] == 1
    assert compile_pass.rewrites["layer_norm_modulate"] == 0  # the chain went whole to the gated op
    want_residual, want_y = gated_site(x, h, projection)
    assert same_bits(residual, want_residual) and same_bits(y, want_y)


@pytest.mark.parametrize("dynamic", DYNAMIC)
def test_the_gated_chain_compiles_to_the_gated_op_with_symbolic_sizes(with_pass, symbolic_graphs, dynamic):
    g = torch.Generator(device=DEVICE).manual_seed(8)
    f = torch.compile(gated_site, fullgraph=True, dynamic=dynamic)
    for batch, tokens, hidden in (SANA, FLUX):
        x, h = (torch.randn(batch, tokens, hidden, generator=g, device=DEVICE).to(torch.bfloat16) for _ in range(2))
        projection = (0.5 * torch.randn(batch, 3 * hidden, generator=g, device=DEVICE)).to(torch.bfloat16)
        (residual, y), code = run_and_get_new_code(f, x, h, projection)
        assert "exactune.gated_residual_layer_norm_modulate" in code
        want_residual, want_y = gated_site(x, h, projection)
        assert same_bits(residual, want_residual) and same_bits(y, want_y)
    assert symbolic_graphs == DYNAMIC[dynamic]
    assert compile_pass.rewrites["gated_residual_layer_norm_modulate"] == 2
    assert compile_pass.rewrites["layer_norm_modulate"] == 0


def test_the_dit_examples_compiled_with_the_pass_give_eagers_bits():
    """examples/run_dit_blocks.py --modulate compile-pass: each block's adaLN sites, compiled with the pass, give
    the eager blocks' bits, eagerly and under graph replay."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
    from run_dit_blocks import run_blocks

    torch._dynamo.reset()
    try:
        rows = run_blocks(["sana", "flux"], "cuda", iters=2, warmup=1, modulate="compile-pass")
    finally:
        et.disable_compile_pass()
        torch._dynamo.reset()
    assert compile_pass.rewrites["gated_residual_layer_norm_modulate"] >= 1
    assert compile_pass.rewrites["layer_norm_modulate"] >= 1
    for row in rows:
        assert row["equal"] and row["graph_equal"], row


def test_what_the_ops_do_not_serve_is_left_alone(with_pass):
    x = torch.randn(2, 77, 256, device=DEVICE)  # float32
    projection = torch.randn(2, 3 * 256, device=DEVICE)
    weight = torch.randn(256, device=DEVICE).to(torch.bfloat16)

    def affine(x, projection):
        shift, scale, _ = projection.chunk(3, dim=1)
        return F.layer_norm(x, (256,), weight, None, 1e-6) * (1 + scale[:, None]) + shift[:, None]

    def broadcast_h(x, h, projection):
        shift, scale, gate = projection.chunk(3, dim=1)
        x = x + gate[:, None] * h[:, :1]  # h of one token: not the gated op's layout
        return x, F.layer_norm(x, (256,), eps=1e-6) * (1 + scale[:, None]) + shift[:, None]

    _, code = run_and_get_code(torch.compile(adaln, fullgraph=True), x, projection)
    _, affine_code = run_and_get_code(torch.compile(affine, fullgraph=True), x.to(torch.bfloat16),
                                      projection.to(torch.bfloat16))
    assert "exactune" not in "\n".join(code + affine_code)
    assert compile_pass.rewrites["layer_norm_modulate"] == 0
    bf16 = x.to(torch.bfloat16), x.to(torch.bfloat16), projection.to(torch.bfloat16)
    _, broadcast_code = run_and_get_code(torch.compile(broadcast_h, fullgraph=True), *bf16)
    assert "exactune.gated_residual_layer_norm_modulate" not in "\n".join(broadcast_code)
    assert compile_pass.rewrites["gated_residual_layer_norm_modulate"] == 0


def test_another_pre_grad_pass_is_not_displaced():
    import torch._inductor.config as inductor_config

    def other(graph):
        pass

    inductor_config.pre_grad_custom_pass = other
    try:
        with pytest.raises(RuntimeError, match="already set to another pass"):
            et.enable_compile_pass()
    finally:
        inductor_config.pre_grad_custom_pass = None
