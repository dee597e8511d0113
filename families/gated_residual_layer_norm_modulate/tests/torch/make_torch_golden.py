"""Golden bits from real PyTorch for the gated residual family, for a CPU oracle.

Run on the GPU machine (torch with CUDA):
    python3 families/gated_residual_layer_norm_modulate/tests/torch/make_torch_golden.py --out DIR
and commit DIR/gated_residual_layer_norm_modulate.{yaml,bin} under
families/gated_residual_layer_norm_modulate/tests/data/torch_golden/.

For each case (hidden D, 2 batches of 2 tokens, an amplitude/offset and an eps)
it records the inputs (x and h, and the shift, scale and gate rows of a
(B, 6, D) adaLN embedding), torch's eager residual r = x + gate * h, the
statistics of torch.native_layer_norm over r, and the eager chain
F.layer_norm(r) * (1 + scale) + shift, with the rsqrtf windows of
layer_norm_modulate's golden data (its make_torch_golden.py explains them;
its helpers are used here, not copied).
"""
import argparse
import importlib.util
import os
import sys

import torch
import torch.nn.functional as F

# layer_norm_modulate's generator, loaded by its path (this file has its name).
_spec = importlib.util.spec_from_file_location(
    "layer_norm_modulate_golden",
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "layer_norm_modulate", "tests", "torch",
                 "make_torch_golden.py"))
_golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_golden)
append_parts, rsqrt_windows, u16, u32, write_golden = (
    _golden.append_parts, _golden.rsqrt_windows, _golden.u16, _golden.u32, _golden.write_golden)

sys.path.insert(0, os.path.dirname(__file__))
from gated_inputs import EMBEDDING_ROWS, GATE_ROW, SCALE_ROW, SHIFT_ROW, make_inputs  # noqa: E402

HIDDEN_SIZES = [72, 1536, 2240, 3072, 5120]
# (name, amplitude, offset, eps): x ~ offset + amplitude * (N(0, 1) + mu_row), h ~ amplitude * N(0, 1)
AMPLITUDES = [
    ("a1_e1e-6", 1.0, 0.0, 1e-6),
    ("a1e-3_e1e-5", 1e-3, 0.0, 1e-5),
    ("o100_a4_e1e-6", 4.0, 100.0, 1e-6),  # x far above gate * h: the sum's rounding matters
    ("a100_e1e-2", 100.0, 0.0, 1e-2),
]
BATCH, TOKENS = 2, 2


def eager_chain(x, h, emb, eps):
    """As the DiT blocks write it: x = x + gate * h, then norm and modulate; the strided rows of the embedding."""
    hidden = x.shape[-1]
    row = lambda k: emb[:, k : k + 1, :]  # noqa: E731
    r = x + row(GATE_ROW) * h
    out = F.layer_norm(r, (hidden,), eps=eps) * (1 + row(SCALE_ROW)) + row(SHIFT_ROW)
    _, mean, rstd = torch.native_layer_norm(r, (hidden,), None, None, eps)
    torch.cuda.synchronize()
    return r, out, mean, rstd


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for gated_residual_layer_norm_modulate.{yaml,bin}")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    blob = bytearray()
    cases = []
    for hidden in HIDDEN_SIZES:
        for index, (name, amplitude, offset, eps) in enumerate(AMPLITUDES):
            x, h, emb = make_inputs(BATCH, TOKENS, hidden, amplitude, hidden * 100 + index, offset)
            r, out, mean, rstd = eager_chain(x, h, emb, eps)
            windows = rsqrt_windows(rstd.reshape(-1))
            offset_bytes = len(blob)
            append_parts(blob, (u16(x), u16(h), u16(emb[:, SHIFT_ROW]), u16(emb[:, SCALE_ROW]),
                                u16(emb[:, GATE_ROW]), u32(mean), u32(rstd), u16(r), u16(out), windows.reshape(-1)))
            cases.append(dict(name=f"d{hidden}_{name}", hidden=hidden, amplitude=amplitude, offset=offset, eps=eps,
                              offset_bytes=offset_bytes, bytes=len(blob) - offset_bytes))
    write_golden(
        args.out, "gated_residual_layer_norm_modulate", blob, cases,
        layout=["# Per case, little-endian, in this order: x and h (rows*hidden bf16 each), shift, scale and gate",
                "# (batch*hidden bf16 each, rows 0, 1 and 2 of a (batch, modulation_rows, hidden) embedding), mean and",
                "# rstd of the LayerNorm over r (rows float32), r and out (rows*hidden bf16), rsqrt_window "
                "(rows*window",
                "# pairs of float32 bits: input, rsqrtf)."],
        chain="r = x + gate * h; F.layer_norm(r, (D,), eps=eps) * (1 + scale) + shift; mean, rstd from "
              "torch.native_layer_norm(r)",
        fields=[("batch", BATCH), ("tokens", TOKENS), ("modulation_rows", EMBEDDING_ROWS), ("shift_row", SHIFT_ROW),
                ("scale_row", SCALE_ROW), ("gate_row", GATE_ROW), ("rsqrt_window", len(windows[0]))])


if __name__ == "__main__":
    main()
