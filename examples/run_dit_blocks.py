"""Run the DiT example blocks with the eager adaLN chains and with exactune's fused ops.

For each block two copies with identical weights are built: one whose adaLN
sites run the eager chains, one that runs exactune's ops: with --modulate
exactune (the default) `exactune.torch.layer_norm_modulate` at the block's
input and `exactune.torch.gated_residual_layer_norm_modulate` for the
attention's gated residual and the next site; with --modulate exactune-ln the
first op at both sites (the gated residual eager); with --modulate
compile-pass the eager chains of both sites, each compiled by torch.compile
with exactune's compile pass on (`exactune.torch.enable_compile_pass()`),
which routes them to the same two ops. Only the sites are compiled, as a
model would compile the functions the pass serves: Inductor's code for the
rest of a block (attention, MLP) changes its bits whatever the pass does.
Both copies see the same
input; their outputs must be identical bit for bit (the rest of the block is
the same deterministic kernels, so any difference comes from the adaLN sites).
On CUDA both copies are also timed, as eager forwards and as CUDA-graph
replays of one forward.

    python examples/run_dit_blocks.py --blocks sana,flux --device cuda --json out.json
    python examples/run_dit_blocks.py --modulate exactune-ln        # the block time with the first op alone
    python examples/run_dit_blocks.py --modulate compile-pass       # the sites through torch.compile and the pass
    python examples/run_dit_blocks.py --device cpu --small --modulate eager   # smoke run

A report script can put examples/ on sys.path and call `run_blocks(...)`.
"""

import argparse
import copy
import json
import statistics
import sys
from pathlib import Path

import torch

from dit_blocks import (FluxLikeBlock, SanaLikeBlock, eager_gated_residual_layer_norm_modulate,
                        eager_layer_norm_modulate)

# Real dims and token counts, and tiny ones for a CPU smoke run (--small).
# Small token counts are deliberately not multiples of anything.
BLOCKS = {
    "sana": dict(cls=SanaLikeBlock, dims=dict(hidden=2240, heads=20, mlp_ratio=2.5), batch=2, tokens=1024,
                 small_dims=dict(hidden=64, heads=2, mlp_ratio=2.5), small_tokens=37),
    "flux": dict(cls=FluxLikeBlock, dims=dict(hidden=3072, heads=24, mlp_ratio=4), batch=1, tokens=4096 + 512,
                 small_dims=dict(hidden=96, heads=3, mlp_ratio=4), small_tokens=53),
}


class ExactuneUnavailable(RuntimeError):
    pass


def load_exactune():
    """Import exactune.torch lazily; fall back to the repo's python/ folder if not installed."""
    try:
        import exactune.torch as et
    except Exception as first:  # ImportError, or an OSError from the extension library
        here = str(Path(__file__).resolve().parents[1] / "python")
        if Path(here).is_dir() and here not in sys.path:
            sys.path.insert(0, here)
            try:
                import exactune.torch as et
            except Exception as second:
                first = second
            else:
                return et
        msg = (str(first).splitlines() or [""])[0]
        raise ExactuneUnavailable(f"cannot import exactune.torch ({type(first).__name__}: {msg}); "
                                  "build/install the python/ package, or use --modulate eager") from None
    return et


# What the second copy's adaLN sites can run, and the exactune ops each calls.
SECOND_COPY = {"exactune": ["layer_norm_modulate", "gated_residual_layer_norm_modulate"],
               "exactune-ln": ["layer_norm_modulate"],
               "compile-pass": ["layer_norm_modulate", "gated_residual_layer_norm_modulate"], "eager": []}


def second_copy_ops(modulate):
    if modulate == "eager":
        return eager_layer_norm_modulate, eager_gated_residual_layer_norm_modulate
    et = load_exactune()
    if modulate == "exactune-ln":
        def gated_modulate(x, h, gate, scale, shift, eps):
            x = x + (gate[:, None] if gate.dim() == 2 else gate) * h
            return x, et.layer_norm_modulate(x, scale, shift, eps)
        return et.layer_norm_modulate, gated_modulate
    if modulate == "compile-pass":
        et.enable_compile_pass()
        # torch.compile's default: the first block's shapes compile a static graph, a second block's a graph of
        # symbolic sizes, which the pass rewrites too.
        return (torch.compile(eager_layer_norm_modulate, fullgraph=True),
                torch.compile(eager_gated_residual_layer_norm_modulate, fullgraph=True))
    return et.layer_norm_modulate, et.gated_residual_layer_norm_modulate


def first_mismatch(a, b):
    """Where two bf16 outputs first differ (bit-wise), with how many elements differ."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return dict(reason=f"{tuple(a.shape)} {a.dtype} vs {tuple(b.shape)} {b.dtype}")
    diff = a.view(torch.int16) != b.view(torch.int16)
    idx = tuple(diff.nonzero()[0].tolist())
    return dict(index=list(idx), eager=float(a[idx]), exactune=float(b[idx]),
                count=int(diff.sum()), total=a.numel())


def bits_equal(a, b):
    # torch.equal on the raw bits: stricter than on values (-0.0 vs 0.0 differ, equal NaNs match).
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a.view(torch.int16), b.view(torch.int16))


def time_eager(fn, iters, warmup):
    """Median ms of one forward, each bracketed by CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events)


def warm_up_for_capture(fn, runs=3):
    """Run fn on a side stream (lazy init, cuBLAS workspaces, autotuning), so that
    none of it lands inside a capture that follows."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(runs):
            fn()
    torch.cuda.current_stream().wait_stream(side)


def time_graph(fn, iters, warmup):
    """Capture one forward into a CUDA graph; return (median replay ms, static output, graph)."""
    # The caller already ran fn eagerly, which lets exactune verify this input
    # signature outside capture.
    warm_up_for_capture(fn)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # captures on its own side stream
        out = fn()
    # The graph is returned so its memory pool (which holds `out`) outlives the comparison.
    return time_eager(graph.replay, iters, warmup), out, graph


def run_blocks(names, device, iters=50, small=False, modulate="exactune", warmup=10):
    """Run each named block with the eager adaLN chains and with what `modulate` (one of SECOND_COPY) names;
    return one dict per block.

    modulate="eager" gives the second copy the eager chains too (smoke test
    without exactune). Timings are None unless device is CUDA.
    """
    fused_modulate, fused_gated_modulate = second_copy_ops(modulate)
    device = torch.device(device)
    results = []
    for name in names:
        spec = BLOCKS[name]
        dims = spec["small_dims"] if small else spec["dims"]
        tokens = spec["small_tokens"] if small else spec["tokens"]
        ref = spec["cls"](**dims, device=device)  # the eager chains
        fused = copy.deepcopy(ref)  # identical weights; only the adaLN sites differ
        fused.modulate, fused.gated_modulate = fused_modulate, fused_gated_modulate
        inputs = ref.example_inputs(batch=spec["batch"], tokens=tokens)
        row = dict(block=name, shape=[spec["batch"], tokens, dims["hidden"]], modulate=modulate,
                   exactune_ops=SECOND_COPY[modulate],
                   equal=None, mismatch=None, eager_ms=None, graph_ms=None,
                   exactune_eager_ms=None, exactune_graph_ms=None, graph_equal=None)
        with torch.inference_mode():
            out_ref, out_fused = ref(*inputs), fused(*inputs)
            row["equal"] = bits_equal(out_ref, out_fused)
            if not row["equal"]:
                row["mismatch"] = first_mismatch(out_ref, out_fused)
                print(f"{name}: outputs differ, first mismatch {row['mismatch']}", file=sys.stderr)
            if device.type == "cuda":
                row["eager_ms"] = time_eager(lambda: ref(*inputs), iters, warmup)
                row["exactune_eager_ms"] = time_eager(lambda: fused(*inputs), iters, warmup)
                row["graph_ms"], g_ref, graph_ref = time_graph(lambda: ref(*inputs), iters, warmup)
                row["exactune_graph_ms"], g_fused, graph_fused = time_graph(lambda: fused(*inputs), iters, warmup)
                torch.cuda.synchronize()
                # Replays must give the same bits as the eager forwards.
                row["graph_equal"] = bits_equal(g_ref, out_ref) and bits_equal(g_fused, out_fused)
                del g_ref, g_fused, graph_ref, graph_fused
        del ref, fused, inputs, out_ref, out_fused
        if device.type == "cuda":
            torch.cuda.empty_cache()
        results.append(row)
    return results


def print_table(rows):
    def ms(v):
        return "-" if v is None else f"{v:.3f}"

    head = f"{'block':6} {'shape (B,S,D)':18} {'equal':6} {'eager ms':>9} {'graph ms':>9} " \
           f"{'exactune eager':>15} {'exactune graph':>15} {'graph speedup':>14}"
    print(head)
    print("-" * len(head))
    for r in rows:
        speedup = "-" if r["graph_ms"] is None else f"{r['graph_ms'] / r['exactune_graph_ms']:.3f}x"
        print(f"{r['block']:6} {str(tuple(r['shape'])):18} {str(r['equal']):6} {ms(r['eager_ms']):>9} "
              f"{ms(r['graph_ms']):>9} {ms(r['exactune_eager_ms']):>15} {ms(r['exactune_graph_ms']):>15} "
              f"{speedup:>14}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--blocks", default="sana,flux", help="comma-separated: " + ",".join(BLOCKS))
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--iters", type=int, default=50, help="timed runs per measurement (median)")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--small", action="store_true", help="tiny dims, for a CPU smoke run")
    p.add_argument("--modulate", choices=list(SECOND_COPY), default="exactune",
                   help="what the second copy's adaLN sites run: both exactune ops, layer_norm_modulate alone "
                        "(exactune-ln), the eager chains compiled with exactune's torch.compile pass "
                        "(compile-pass), or the eager chains (a smoke test without exactune)")
    p.add_argument("--json", metavar="OUT", help="write the results here")
    args = p.parse_args(argv)

    names = [n.strip() for n in args.blocks.split(",") if n.strip()]
    unknown = [n for n in names if n not in BLOCKS]
    if unknown:
        p.error(f"unknown block(s) {','.join(unknown)}; known: {','.join(BLOCKS)}")
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        p.error("--device cuda but torch sees no CUDA device (use --device cpu)")

    try:
        rows = run_blocks(names, args.device, args.iters, args.small, args.modulate, args.warmup)
    except ExactuneUnavailable as e:
        print(f"run_dit_blocks: {e}", file=sys.stderr)
        return 2

    dev = torch.cuda.get_device_name(torch.device(args.device)) if args.device.startswith("cuda") else "cpu"
    print(f"torch {torch.__version__}, device {dev}, second copy: {args.modulate}")
    print_table(rows)
    if args.json:
        doc = dict(torch=torch.__version__, device=dev, modulate=args.modulate, small=args.small,
                   iters=args.iters, blocks=rows)
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0 if all(r["equal"] and r["graph_equal"] in (True, None) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
