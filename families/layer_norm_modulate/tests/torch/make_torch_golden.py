"""Golden bits from real PyTorch, for the CPU suite's independent oracle.

Run on the GPU machine (torch with CUDA):
    python3 families/layer_norm_modulate/tests/torch/make_torch_golden.py --out DIR
and commit DIR/layer_norm_modulate.{yaml,bin} under
families/layer_norm_modulate/tests/data/torch_golden/. The CPU suite
(tests/cpu/test_torch_golden.cpp) runs exactune's reference and every variant
on these inputs and compares them with torch's bits, all rows.

For each case (hidden D, 2 batches of 2 tokens, an amplitude/offset and an eps)
it records the inputs (x, and the shift and scale rows of a (B, 6, D) adaLN
embedding), torch.native_layer_norm's mean and rstd, F.layer_norm's output and
the eager chain F.layer_norm(x) * (1 + scale) + shift.

rstd is rsqrtf(var + eps), the GPU's rsqrt.approx.f32, which no host function
reproduces. So that the CPU can reproduce it exactly where it matters, each row
also gets a window: the GPU's rsqrtf at the 33 floats around 1/rstd^2 (the row's
var + eps lies among them). The CPU emulation reads rsqrtf from these windows
and fails on any input outside them. The windows come from rsqrtf itself,
compiled by torch's jiterator (NVRTC), and every row's rstd must be found in its
window, which checks that the window and aten's LayerNorm use the same
instruction.
"""
import argparse
import hashlib
import os
import platform
import subprocess

import numpy as np
import torch
import torch.nn.functional as F

HIDDEN_SIZES = [4, 64, 400, 2240, 2244, 4096]
# (name, amplitude, offset, eps): x ~ offset + amplitude * (N(0, 1) + mu_row)
AMPLITUDES = [
    ("a1_e1e-6", 1.0, 0.0, 1e-6),
    ("a1e-3_e1e-5", 1e-3, 0.0, 1e-5),  # var ~ 1e-6, below eps: eps matters
    ("o100_a4_e1e-6", 4.0, 100.0, 1e-6),  # a large common offset: the combine's rounding matters
    ("a100_e1e-2", 100.0, 0.0, 1e-2),
]
BATCH, TOKENS = 2, 2
EMBEDDING_ROWS, SHIFT_ROW, SCALE_ROW = 6, 0, 1
WINDOW_HALF = 16  # floats on each side of 1/rstd^2


def u16(t):
    return t.detach().contiguous().cpu().view(torch.int16).numpy().view(np.uint16).reshape(-1)


def u32(t):
    return t.detach().contiguous().cpu().view(torch.int32).numpy().view(np.uint32).reshape(-1)


def make_inputs(hidden, amplitude, offset, seed):
    g = torch.Generator().manual_seed(seed)
    mu = torch.rand(BATCH, TOKENS, 1, generator=g) * 2 - 1
    x = (offset + amplitude * (torch.randn(BATCH, TOKENS, hidden, generator=g) + mu)).to(torch.bfloat16)
    emb = (torch.rand(BATCH, EMBEDDING_ROWS, hidden, generator=g) * 2 - 1).to(torch.bfloat16)
    special = torch.tensor([-1.0, 0.0, 1.0, -0.0], dtype=torch.bfloat16)  # 1 + scale = 0, 1, 2, 1
    cols = torch.arange(0, hidden, 7)
    emb[:, SCALE_ROW, cols] = special[(cols // 7) % 4]
    return x.cuda(), emb.cuda()


GPU_RSQRTF = torch.cuda.jiterator._create_jit_fn("template <typename T> T gpu_rsqrtf(T x) { return rsqrtf(x); }")


def rsqrt_windows(rstd):
    """(rows, 2 * WINDOW_HALF + 1, 2) uint32: (input, rsqrtf(input)) around each row's 1/rstd^2."""
    r = rstd.double().cpu()
    centre = (1.0 / (r * r)).float().numpy().view(np.int32)
    steps = np.arange(-WINDOW_HALF, WINDOW_HALF + 1, dtype=np.int32)
    inputs = (centre[:, None] + steps[None, :]).view(np.float32)
    outputs = GPU_RSQRTF(torch.from_numpy(inputs.copy()).cuda())
    torch.cuda.synchronize()
    pairs = np.stack([inputs.view(np.uint32), u32(outputs).reshape(inputs.shape)], axis=-1)
    found = (pairs[:, :, 1] == u32(rstd)[:, None]).any(axis=1)
    assert found.all(), f"rows {np.nonzero(~found)[0]}: aten's rstd is not the jiterator's rsqrtf of any window input"
    return pairs


def approximation_evidence():
    """How often rsqrtf differs from the correctly rounded 1/sqrt on 2^20 floats: not zero, or it is not approximate."""
    g = torch.Generator().manual_seed(11)
    x = torch.exp(torch.rand(1 << 20, generator=g, dtype=torch.float64) * 30 - 15).float()
    exact = (1.0 / torch.sqrt(x.double())).float()
    gpu = GPU_RSQRTF(x.cuda()).cpu()
    return int((u32(gpu) != u32(exact)).sum()), x.numel()


def git_commit():
    if os.environ.get("EXACTUNE_COMMIT"):  # a tree copied without its .git
        return os.environ["EXACTUNE_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=os.path.dirname(__file__)).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def append_parts(blob, parts):
    """Each array's bytes, little-endian, at the end of blob."""
    for part in parts:
        blob += part.astype(part.dtype.newbyteorder("<")).tobytes()


def write_golden(out, family, blob, cases, layout, chain, fields):
    """Writes out/<family>.bin (blob) and out/<family>.yaml: `layout`, comment lines saying what each case holds
    in the blob; `chain`, the eager chain recorded; `fields`, (name, value) lines before the cases. The families'
    make_torch_golden.py share it (the gated residual family's loads this file)."""
    differing, sampled = approximation_evidence()
    assert differing > 0, "jiterator's rsqrtf equals the correctly rounded 1/sqrt everywhere: not the approximation"
    props = torch.cuda.get_device_properties(0)
    with open(os.path.join(out, f"{family}.bin"), "wb") as f:
        f.write(blob)
    lines = [
        f"# Generated by families/{family}/tests/torch/make_torch_golden.py on the GPU machine; do not edit.",
        *layout,
        "format_version: 1",
        f"family: {family}",
        "source:",
        f"  torch: \"{torch.__version__}\"",
        f"  cuda_build: \"{torch.version.cuda}\"",
        f"  gpu: \"{torch.cuda.get_device_name(0)}\"",
        f"  compute_capability: \"{props.major}.{props.minor}\"",
        f"  python: \"{platform.python_version()}\"",
        f"  exactune_commit: \"{git_commit()}\"",
        f"  chain: \"{chain}\"",
        "  rsqrt_window: \"rsqrtf(x) through torch.cuda.jiterator (NVRTC), at the 33 floats around 1/rstd^2 of each row\"",
        f"  rsqrtf_differs_from_correctly_rounded: \"{differing} of {sampled} floats in [e^-15, e^15]\"",
        f"data: {family}.bin",
        f"sha256: \"{hashlib.sha256(blob).hexdigest()}\"",
        *(f"{name}: {value}" for name, value in fields),
        "cases:",
    ]
    for c in cases:
        lines.append(f"  - {{name: {c['name']}, hidden: {c['hidden']}, amplitude: {c['amplitude']!r}, "
                     f"offset: {c['offset']!r}, eps: {c['eps']!r}, offset_bytes: {c['offset_bytes']}, "
                     f"bytes: {c['bytes']}}}")
    with open(os.path.join(out, f"{family}.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"golden: {len(cases)} cases, {len(blob)} bytes; rsqrtf differs from correctly rounded on "
          f"{differing}/{sampled}; torch {torch.__version__} cu{torch.version.cuda} on {torch.cuda.get_device_name(0)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for layer_norm_modulate.{yaml,bin}")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    blob = bytearray()
    cases = []
    for hidden in HIDDEN_SIZES:
        for index, (name, amplitude, offset, eps) in enumerate(AMPLITUDES):
            x, emb = make_inputs(hidden, amplitude, offset, seed=hidden * 100 + index)
            scale = emb[:, SCALE_ROW : SCALE_ROW + 1, :]
            shift = emb[:, SHIFT_ROW : SHIFT_ROW + 1, :]
            out = F.layer_norm(x, (hidden,), eps=eps) * (1 + scale) + shift
            y, mean, rstd = torch.native_layer_norm(x, (hidden,), None, None, eps)
            assert torch.equal(y, F.layer_norm(x, (hidden,), eps=eps)), "native_layer_norm and F.layer_norm differ"
            windows = rsqrt_windows(rstd.reshape(-1))
            offset_bytes = len(blob)
            append_parts(blob, (u16(x), u16(emb[:, SHIFT_ROW]), u16(emb[:, SCALE_ROW]), u32(mean), u32(rstd), u16(y),
                                u16(out), windows.reshape(-1)))
            cases.append(dict(name=f"d{hidden}_{name}", hidden=hidden, amplitude=amplitude, offset=offset, eps=eps,
                              offset_bytes=offset_bytes, bytes=len(blob) - offset_bytes))
    write_golden(
        args.out, "layer_norm_modulate", blob, cases,
        layout=["# Per case, little-endian, in this order: x (rows*hidden bf16), shift and scale "
                "(batch*hidden bf16 each,",
                "# rows 0 and 1 of a (batch, modulation_rows, hidden) embedding), mean and rstd (rows float32),",
                "# layer_norm and out (rows*hidden bf16), rsqrt_window (rows*window pairs of float32 bits: input, "
                "rsqrtf)."],
        chain="F.layer_norm(x, (D,), eps=eps) * (1 + scale) + shift; mean, rstd from torch.native_layer_norm",
        fields=[("batch", BATCH), ("tokens", TOKENS), ("modulation_rows", EMBEDDING_ROWS), ("shift_row", SHIFT_ROW),
                ("scale_row", SCALE_ROW), ("rsqrt_window", 2 * WINDOW_HALF + 1)])


if __name__ == "__main__":
    main()
