"""The gated residual family's torch inputs, shared by its torch cross-check
(test_gated_torch_crosscheck.py) and its golden-data generator
(make_torch_golden.py): x, h and a (B, 6, D) adaLN embedding whose rows 0, 1
and 2 are shift, scale and gate, with special values planted in scale
(1 + scale = 0, 1, 2, 1) and in gate (gate * h = -h, 0, h, -0).
"""
import torch

EMBEDDING_ROWS, SHIFT_ROW, SCALE_ROW, GATE_ROW = 6, 0, 1, 2


def make_inputs(batch, tokens, hidden, amplitude, seed, offset=0.0):
    """x ~ offset + amplitude * (N(0, 1) + mu_row), h ~ amplitude * N(0, 1), the embedding; on the GPU."""
    g = torch.Generator().manual_seed(seed)
    mu = torch.rand(batch, tokens, 1, generator=g) * 2 - 1
    x = (offset + amplitude * (torch.randn(batch, tokens, hidden, generator=g) + mu)).to(torch.bfloat16)
    h = (amplitude * torch.randn(batch, tokens, hidden, generator=g)).to(torch.bfloat16)
    emb = (torch.rand(batch, EMBEDDING_ROWS, hidden, generator=g) * 2 - 1).to(torch.bfloat16)
    special = torch.tensor([-1.0, 0.0, 1.0, -0.0], dtype=torch.bfloat16)
    cols = torch.arange(0, hidden, 7)
    emb[:, SCALE_ROW, cols] = special[(cols // 7) % 4]
    cols = torch.arange(0, hidden, 5)
    emb[:, GATE_ROW, cols] = special[(cols // 5) % 4]
    return x.cuda(), h.cuda(), emb.cuda()
