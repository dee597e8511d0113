"""exactune.torch_dlpack, the torch-free binding, on a GPU against real torch
(ci/gpu.sh runtime stage): its three ops bit-exact with the eager chains on
every default shape, fused exactly where exactune.torch's ops are (the same
runtime and tables), a token-major x and out= included; CUDA-graph capture
and replay of a verified signature; calls it must hand to eager (autograd, a
tensor subclass, CPU tensors) give eager's bits and keep its gate open.
"""

import pytest
import torch

if not torch.cuda.is_available():
    pytest.skip("SKIPPED: no CUDA device for the torch-free binding's GPU tests", allow_module_level=True)

import exactune.torch as et  # noqa: E402
import exactune.torch_dlpack as etd  # noqa: E402
from exactune.shapes import default_shapes  # noqa: E402
from torch_op_cases import graph_replays_give_eagers_bits, inputs, same_bits  # noqa: E402


def eager(x, scale, shift, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), eps=eps) * (1 + scale[:, None]) + shift[:, None]


@pytest.fixture(autouse=True)
def open_gates():
    for op in etd.OPS:
        etd.reset_gate(op)
        et.reset_gate(op)
    yield


@pytest.mark.parametrize("token_major", [False, True], ids=["contiguous", "token_major"])
@pytest.mark.parametrize("shape", default_shapes("layer_norm_modulate"), ids=lambda s: s["name"])
def test_default_shapes_bit_exact_and_fused_where_the_op_is(shape, token_major):
    b, s, d, k = shape["batch"], shape["tokens"], shape["hidden"], shape["modulation_rows"]
    x, projection = inputs(b, s, d, chunks=k)
    if token_major:
        x = x.transpose(1, 2).contiguous().transpose(1, 2)
    shift, scale = projection[:, :d], projection[:, d:2 * d]
    out = etd.layer_norm_modulate(x, scale, shift, shape["eps"])
    assert same_bits(out, eager(x, scale, shift, shape["eps"])), etd.last_variant()
    assert same_bits(etd.layer_norm_modulate(x, scale, shift, shape["eps"]), out)
    et.layer_norm_modulate(x, scale, shift, shape["eps"])
    status, op_status = etd.gate_status(), et.gate_status()
    assert status["enabled"], status
    assert status["verified"] == op_status["verified"], (status, op_status)
    if status["verified"]:
        assert etd.last_variant() == et.last_variant()


def test_cuda_graph_capture_and_replay():
    assert graph_replays_give_eagers_bits(etd.layer_norm_modulate, eager)
    status = etd.gate_status()
    assert status["enabled"] and status["verified"] == 1, status


def test_calls_for_the_eager_chain_give_its_bits_and_keep_the_gate_open():
    d = 2240
    x, projection = inputs(2, 45, d)
    shift, scale = projection[:, :d], projection[:, d:2 * d]
    wants_grad = x.clone().requires_grad_()
    out = etd.layer_norm_modulate(wants_grad, scale, shift, 1e-6)
    assert out.requires_grad and same_bits(out.detach(), eager(x, scale, shift, 1e-6))
    parameter = torch.nn.Parameter(scale.clone(), requires_grad=False)  # a subclass of torch.Tensor
    assert same_bits(etd.layer_norm_modulate(x, parameter, shift, 1e-6), eager(x, scale, shift, 1e-6))
    cpu = [t.cpu() for t in (x, scale, shift)]
    assert same_bits(etd.layer_norm_modulate(*cpu, 1e-6), eager(*cpu, 1e-6))
    status = etd.gate_status()
    assert status["enabled"] and status["verified"] == 0 and status["failures"] == 0, status


@pytest.mark.parametrize("shape", default_shapes("qk_head_layer_norm"), ids=lambda s: s["name"])
def test_qk_default_shapes_bit_exact_and_fused_where_the_op_is(shape):
    size = (shape["batch"], shape["tokens"], shape["heads"], shape["head_dim"])
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k = ((torch.randn(size, generator=g, device="cuda") + 0.5).to(torch.bfloat16) for _ in "qk")
    want = [torch.nn.functional.layer_norm(t, (size[-1],), eps=shape["eps"]) for t in (q, k)]
    got = etd.qk_head_layer_norm(q, k, shape["eps"])
    assert all(same_bits(a, b) for a, b in zip(got, want)), etd.last_variant("qk_head_layer_norm")
    outs = (torch.empty_like(q), torch.empty_like(k))
    written = etd.qk_head_layer_norm(q, k, shape["eps"], out=outs)
    assert all(a is b for a, b in zip(written, outs))
    assert all(same_bits(a, b) for a, b in zip(outs, want))
    et.qk_head_layer_norm(q, k, shape["eps"])
    fused, op_fused = (gates.gate_status("qk_head_layer_norm")["verified"] > 0 for gates in (etd, et))
    assert fused == op_fused


@pytest.mark.parametrize("shape", default_shapes("gated_residual_layer_norm_modulate"), ids=lambda s: s["name"])
def test_gated_residual_default_shapes_bit_exact_and_fused_where_the_op_is(shape):
    b, s, d, k = shape["batch"], shape["tokens"], shape["hidden"], shape["modulation_rows"]
    x, projection = inputs(b, s, d, chunks=k)
    h, _ = inputs(b, s, d, chunks=1, seed=7)
    shift, scale, gate = (projection[:, i * d:(i + 1) * d] for i in range(3))
    residual = x + gate[:, None] * h
    got = etd.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, shape["eps"])
    assert same_bits(got[0], residual) and same_bits(got[1], eager(residual, scale, shift, shape["eps"]))
    et.gated_residual_layer_norm_modulate(x, h, gate, scale, shift, shape["eps"])
    op = "gated_residual_layer_norm_modulate"
    assert etd.gate_status(op)["verified"] == et.gate_status(op)["verified"], (etd.gate_status(op), et.gate_status(op))
