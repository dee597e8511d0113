"""What the torch ops' GPU tests share: bitwise equality, the inputs of an
adaLN site (x and a (B, k*D) adaLN projection whose chunks are the rows), what
the committed tables offer this GPU, and a CUDA-graph replay of a modulate op.
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
    """(how the tables resolved this GPU, the candidates they offer at size and rows, best first: variant, step and
    whether it is verified on this GPU at that size)."""
    p = torch.cuda.get_device_properties(0)
    return candidates(family, torch.cuda.get_device_name(), p.major, p.minor, p.multi_processor_count, size, rows)


def tables_serve(family, size, rows):
    """Whether the runtime serves this GPU at size and rows, with aligned data: the tables offer a candidate
    verified on this GPU there (an unverified one is never launched)."""
    return any(c.verified for c in tables_offer(family, size, rows)[1])


def graph_replays_give_eagers_bits(modulate, eager, d=3072, tokens=4608):
    """modulate(x, scale, shift, eps), verified outside capture, then captured into a CUDA graph and replayed on
    two fresh inputs copied into the captured ones: whether every replay gave eager's bits."""
    x, projection = inputs(1, tokens, d, chunks=3)
    shift, scale = projection[:, :d], projection[:, d:2 * d]
    modulate(x, scale, shift, 1e-6)
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.cuda.graph(graph):
        out = modulate(x, scale, shift, 1e-6)
    torch.cuda.current_stream().wait_stream(stream)
    replays = []
    for seed in (1, 2):
        fresh, fresh_projection = inputs(1, tokens, d, chunks=3, seed=seed)
        x.copy_(fresh)
        projection.copy_(fresh_projection)
        graph.replay()
        torch.cuda.synchronize()
        replays.append(same_bits(out, eager(x, scale, shift, 1e-6)))
    return all(replays)
