"""What the torch ops' GPU tests share: bitwise equality, the inputs of an
adaLN site (x and a (B, k*D) adaLN projection whose chunks are the rows), and
what the committed tables offer this GPU.
"""

import torch

from exactune.runtime import candidates

DEVICE = "cuda"


def same_bits(a, b):
    return a.shape == b.shape and torch.equal(a.contiguous().view(torch.int16), b.contiguous().view(torch.int16))


def inputs(batch, tokens, hidden, chunks=6, amplitude=1.0, seed=0):
    """x (batch, tokens, hidden) bf16, with a per-row offset so that the mean matters, and a (batch,
    chunks * hidden) projection."""
    g = torch.Generator(device=DEVICE).manual_seed(seed)
    x = (amplitude * torch.randn(batch, tokens, hidden, generator=g, device=DEVICE)
         + torch.randn(batch, tokens, 1, generator=g, device=DEVICE)).to(torch.bfloat16)
    projection = (0.5 * torch.randn(batch, chunks * hidden, generator=g, device=DEVICE)).to(torch.bfloat16)
    return x, projection


def tables_offer(family, size, rows):
    """(how the tables resolved this GPU, the variants they offer at size and rows, best first)."""
    p = torch.cuda.get_device_properties(0)
    return candidates(family, torch.cuda.get_device_name(), p.major, p.minor, p.multi_processor_count, size, rows)
