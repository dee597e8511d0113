"""Measures exactune's torch ops on this GPU, in one run, for reports/<gpu>/runtime.md.

Per default shape of each family (shapes/<name>.yaml; the token-major family's
through the layer_norm_modulate op, with x permuted as Sana holds it):
  - bit-exactness of the op against the eager chain (three input amplitudes),
    and the variant the runtime launched (with the step of the tables' chain);
  - device time per call under CUDA-graph replay, of the op and of the eager
    chain: a graph of 20 calls, CUDA events around each replay (the sweep's own
    method, so that the op compares with the sweep's figure for its variant);
  - host time per call on the default stream with no graph, of the op as
    exactune.torch calls it (its direct entry), of the same op through the
    dispatcher (torch.ops.exactune.*), of the torch-free binding where this
    torch has the DLPack exchange API (exactune.torch_dlpack), of the eager
    chain and of one aten op
    (the floor under any op's host cost), interleaved: each round times a burst of each, in turn, so that a host
    whose speed drifts over the run (40% was seen) moves all three alike; the
    op's figure over the floor's is taken round by round.
Then the DiT-block examples (examples/run_dit_blocks.py).

    python3 python/tools/runtime_bench.py --out runtime.json     (ci/gpu.sh's runtime stage)

python/tools/runtime_report.py turns the JSON and the committed sweeps into runtime.md.
"""

import argparse
import functools
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

import exactune.torch as et
from exactune.shapes import default_shapes

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from run_dit_blocks import bits_equal, run_blocks, warm_up_for_capture  # noqa: E402

GRAPH_CALLS = 20      # launches per graph, as the sweep's hot timing
GRAPH_REPLAYS = 200   # replays timed, each between two events (fewer left a few % of clock noise)
HOST_CALLS = 100      # calls per host-timed burst (fewer than the launch queue holds)
HOST_BURSTS = 41
AMPLITUDES = (1.0, 1e-3, 30.0)


def graph_us(fn):
    """Median device µs per call: `fn` captured GRAPH_CALLS times in one graph, each replay timed alone."""
    warm_up_for_capture(fn)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(GRAPH_CALLS):
            fn()
    for _ in range(20):
        graph.replay()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(GRAPH_REPLAYS)]
    for start, end in events:
        start.record()
        graph.replay()
        end.record()
    torch.cuda.synchronize()
    per_call = [start.elapsed_time(end) * 1000 / GRAPH_CALLS for start, end in events]
    del graph
    return statistics.median(per_call)


def host_us_interleaved(calls):
    """{name: (median, best)} host µs per call of each of `calls` ({name: fn}),
    timed in turn within each of HOST_BURSTS rounds, and the median over rounds
    of each one's burst over the first's ({name: ratio}): the first is the
    floor the others are set against."""
    for fn in calls.values():
        for _ in range(20):
            fn()
    gc.collect()
    torch.cuda.synchronize()
    bursts = {name: [] for name in calls}
    gc.disable()  # as timeit does
    try:
        for _ in range(HOST_BURSTS):
            for name, fn in calls.items():
                start = time.perf_counter()
                for _ in range(HOST_CALLS):
                    fn()
                bursts[name].append((time.perf_counter() - start) * 1e6 / HOST_CALLS)
                torch.cuda.synchronize()
    finally:
        gc.enable()
    floor = next(iter(calls))
    figures = {name: (statistics.median(b), min(b)) for name, b in bursts.items()}
    over_floor = {name: statistics.median(x / f for x, f in zip(b, bursts[floor])) for name, b in bursts.items()}
    return figures, over_floor


def modulate_case(shape, token_major=False):
    """(make inputs, eager chain, op), each called with the inputs. token_major: x as Sana holds it,
    y.permute(0, 2, 1) of a contiguous (B, D, S) y, which the eager chain copies first and the op reads in place."""
    b, s, d, k, eps = shape["batch"], shape["tokens"], shape["hidden"], shape["modulation_rows"], shape["eps"]
    g = torch.Generator(device="cuda").manual_seed(0)

    def make(amplitude):
        if token_major:
            x = (amplitude * torch.randn(b, d, s, generator=g, device="cuda")).to(torch.bfloat16).permute(0, 2, 1)
        else:
            x = (amplitude * torch.randn(b, s, d, generator=g, device="cuda")).to(torch.bfloat16)
        projection = (0.5 * torch.randn(b, k * d, generator=g, device="cuda")).to(torch.bfloat16)
        return x, projection[:, d:2 * d], projection[:, :d], eps  # scale, shift: chunks of the adaLN projection

    def eager(x, scale, shift, eps):
        return F.layer_norm(x, (d,), eps=eps) * (1 + scale[:, None]) + shift[:, None]

    return make, eager, et.layer_norm_modulate, torch.ops.exactune.layer_norm_modulate.default


def qk_case(shape):
    size = (shape["batch"], shape["tokens"], shape["heads"], shape["head_dim"])
    eps, d = shape["eps"], shape["head_dim"]
    g = torch.Generator(device="cuda").manual_seed(0)

    def make(amplitude):
        q, k = ((amplitude * torch.randn(size, generator=g, device="cuda") + 0.5).to(torch.bfloat16) for _ in "qk")
        return q, k, eps

    def eager(q, k, eps):
        return F.layer_norm(q, (d,), eps=eps), F.layer_norm(k, (d,), eps=eps)

    return make, eager, et.qk_head_layer_norm, torch.ops.exactune.qk_head_layer_norm.default


def same_outputs(a, b):
    a, b = (a,) if torch.is_tensor(a) else a, (b,) if torch.is_tensor(b) else b
    return len(a) == len(b) and all(bits_equal(x, y) for x, y in zip(a, b))


def gated_residual_case(shape):
    """x and h (B, S, D); shift, scale and gate rows 0, 1 and 2 of a (B, k * D) adaLN projection."""
    b, s, d, k, eps = shape["batch"], shape["tokens"], shape["hidden"], shape["modulation_rows"], shape["eps"]
    g = torch.Generator(device="cuda").manual_seed(0)

    def make(amplitude):
        x = (amplitude * torch.randn(b, s, d, generator=g, device="cuda")).to(torch.bfloat16)
        h = torch.randn(b, s, d, generator=g, device="cuda").to(torch.bfloat16)
        projection = (0.5 * torch.randn(b, k * d, generator=g, device="cuda")).to(torch.bfloat16)
        return x, h, projection[:, 2 * d:3 * d], projection[:, d:2 * d], projection[:, :d], eps

    def eager(x, h, gate, scale, shift, eps):
        residual = x + gate[:, None] * h
        return residual, F.layer_norm(residual, (d,), eps=eps) * (1 + scale[:, None]) + shift[:, None]

    return (make, eager, et.gated_residual_layer_norm_modulate,
            torch.ops.exactune.gated_residual_layer_norm_modulate.default)


def dlpack_binding():
    """exactune.torch_dlpack where this torch publishes the DLPack exchange API and the binding is built; else
    None (and why, printed)."""
    try:
        import exactune.torch_dlpack as etd
    except ImportError as missing:
        print(f"runtime_bench: the torch-free binding is not timed: {missing}", flush=True)
        return None
    return etd


DLPACK = dlpack_binding()


# The families measured, and the torch op (and so the gate) that serves each:
# a token-major x goes through the same op as a contiguous one.
FAMILY_OPS = {"layer_norm_modulate": "layer_norm_modulate", "qk_head_layer_norm": "qk_head_layer_norm",
              "layer_norm_modulate_token_major": "layer_norm_modulate",
              "gated_residual_layer_norm_modulate": "gated_residual_layer_norm_modulate"}
CASES = {"layer_norm_modulate": modulate_case, "qk_head_layer_norm": qk_case,
         "layer_norm_modulate_token_major": functools.partial(modulate_case, token_major=True),
         "gated_residual_layer_norm_modulate": gated_residual_case}


def measure(family, shape):
    make, eager, op, dispatched = CASES[family](shape)
    gate = FAMILY_OPS[family]
    exact = True
    for amplitude in AMPLITUDES:
        et.reset_gate(gate)  # each amplitude verified anew: the gate compares on the first call
        args = make(amplitude)
        exact &= same_outputs(op(*args), eager(*args))
        exact &= same_outputs(op(*args), eager(*args))  # the verified, fused-only path
    status = et.gate_status(gate)
    # Not verified: the runtime did not serve the shape (no tables' choice it runs), and eager ran.
    variant = et.last_variant(gate) if status["verified"] == 1 else ""
    binding = getattr(DLPACK, gate) if DLPACK else None  # the torch-free binding's op, checked as the op is
    if binding:
        dlpack_exact = True
        for amplitude in AMPLITUDES:
            DLPACK.reset_gate(gate)
            args = make(amplitude)
            dlpack_exact &= same_outputs(binding(*args), eager(*args))
            dlpack_exact &= same_outputs(binding(*args), eager(*args))
        dlpack_status = DLPACK.gate_status(gate)
    # Bound with functools.partial, so that the host figures carry no Python frame of ours.
    args = make(1.0)
    timed_op, timed_dispatched, timed_eager = (functools.partial(fn, *args) for fn in (op, dispatched, eager))
    # The floor: one aten op on the call's first input, allocating its output as the op does.
    floor = functools.partial(torch.ops.aten.empty_like.default, args[0])
    calls = {"floor": floor, "op": timed_op, "dispatched": timed_dispatched, "eager": timed_eager}
    if binding:
        calls["dlpack"] = functools.partial(binding, *args)
    host, over_floor = host_us_interleaved(calls)
    (op_host, op_host_best), (eager_host, eager_host_best) = host["op"], host["eager"]
    op_graph, eager_graph = graph_us(timed_op), graph_us(timed_eager)
    row = dict(shape=shape["name"], params={k: v for k, v in shape.items() if k not in ("name", "model")},
               exact=bool(exact and status["enabled"]), fused=status["verified"] == 1, gate=status, variant=variant,
               op_graph_us=op_graph, eager_graph_us=eager_graph,
               op_host_us=op_host, op_host_best_us=op_host_best, eager_host_us=eager_host,
               eager_host_best_us=eager_host_best, floor_host_us=host["floor"][0], floor_host_best_us=host["floor"][1],
               op_over_floor=over_floor["op"], eager_over_floor=over_floor["eager"],
               dispatched_host_us=host["dispatched"][0], dispatched_over_floor=over_floor["dispatched"])
    if binding:
        row.update(dlpack_host_us=host["dlpack"][0], dlpack_host_best_us=host["dlpack"][1],
                   dlpack_over_floor=over_floor["dlpack"],
                   dlpack_exact=bool(dlpack_exact and dlpack_status["enabled"]),
                   dlpack_fused=dlpack_status["verified"] == 1)
    print(f"{family:32} {shape['name']:30} exact={row['exact']} {variant or 'not served: eager':60} graph op {row['op_graph_us']:7.2f} "
          f"eager {row['eager_graph_us']:7.2f} us | host op {row['op_host_us']:6.2f} through the dispatcher "
          f"{row['dispatched_host_us']:6.2f} eager {row['eager_host_us']:6.2f} "
          f"floor {row['floor_host_us']:6.2f} us, op {row['op_over_floor']:.2f}x the floor"
          + (f" | torch-free binding {row['dlpack_host_us']:6.2f} us, exact={row['dlpack_exact']}" if binding else ""),
          flush=True)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the JSON to write")
    parser.add_argument("--dit-iters", type=int, default=30,
                        help="timed forwards per DiT block (default 30; 0: no DiT blocks)")
    parser.add_argument("--family", action="append", choices=sorted(FAMILY_OPS),
                        help="measure this family only (repeatable; default: every family)")
    parser.add_argument("--shape", action="append",
                        help="measure this default shape only (repeatable; default: every shape of the families)")
    options = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("runtime_bench: no CUDA device")
    result = dict(gpu=torch.cuda.get_device_name(), torch=torch.__version__, cuda=torch.version.cuda,
                  method=dict(graph=f"CUDA graph of {GRAPH_CALLS} calls, events around each of {GRAPH_REPLAYS} "
                                    "replays, median per call",
                              host=f"perf_counter around bursts of {HOST_CALLS} calls on the default stream, no "
                                   f"graph, no synchronisation inside a burst, Python's garbage collector off "
                                   f"(as timeit does); the op (exactune.torch's direct entry), the op through the "
                                   f"dispatcher, the eager chain and one aten op (empty_like of x, "
                                   f"the floor) in turn in each of {HOST_BURSTS} rounds; median and best of the "
                                   f"rounds, and the median of each round's op over floor"),
                  families={})
    with torch.inference_mode():
        for family in options.family or FAMILY_OPS:
            shapes = [s for s in default_shapes(family) if not options.shape or s["name"] in options.shape]
            result["families"][family] = [measure(family, shape) for shape in shapes]
    # What one Python call of one aten op costs here (it allocates its output,
    # as the ops do): the floor under any op's host time, as every shape's
    # rounds timed it.
    rows = [r for family_rows in result["families"].values() for r in family_rows]
    if rows:
        result["host_floor_us"] = dict(aten_empty_like=statistics.median(r["floor_host_us"] for r in rows),
                                       aten_empty_like_best=min(r["floor_host_best_us"] for r in rows))
    # Both exactune ops in the blocks, then layer_norm_modulate alone (the gated residual eager): what the
    # gated residual op adds to a block's time; then the eager chains through torch.compile and exactune's pass.
    result["dit_blocks"] = [row for modulate in ("exactune", "exactune-ln", "compile-pass")
                            for row in run_blocks(["sana", "flux"], "cuda", iters=options.dit_iters,
                                                  modulate=modulate)] if options.dit_iters else []
    Path(options.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {options.out}")
    bad = [r["shape"] for rows in result["families"].values() for r in rows if not r["exact"]]
    bad += [f"{b['block']} ({b['modulate']})" for b in result["dit_blocks"] if not b["equal"]]
    if bad:
        sys.exit(f"runtime_bench: not bit-exact: {', '.join(bad)}")


if __name__ == "__main__":
    main()
