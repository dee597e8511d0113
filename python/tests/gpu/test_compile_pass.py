"""exactune's opt-in torch.compile pass on a GPU (exactune.compile_pass): the
eager adaLN chain, the gated residual before it and the per-head q/k layer
norms, written as a model writes them, compile to graphs that call exactune's
ops and give eager's bits; so do the DiT examples whose adaLN sites are
compiled with the pass; what the ops do not serve (an affine LayerNorm, fp32,
a broadcast h) is left as it is.
"""

import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

if not torch.cuda.is_available():
    pytest.skip("SKIPPED: no CUDA device for the compile pass's GPU tests", allow_module_level=True)

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
