#!/usr/bin/env python3
"""Where a GPU sweep's time went, read from its sweep.yaml alone: the kernel
time its kept samples stand for, per shape and per kind of measurement
(screens, full figures with their re-timing, the copy and the reference
chain, and the noise passes, whose samples sweep.yaml does not keep:
estimated from their variants' medians), set against the sweep's wall time.
The rest of the wall time is the host's: compile, verify, input generation,
graph captures, warm-up replays and bookkeeping.

A sample is one replay's per-launch time (hot regimes) or one launch (cold),
so the time it stands for is its value times the replay's launches; a cold
sample adds its L2 flush (a memset of twice the L2 at the peak bandwidth).
The replay's launches follow the sweep's own timing method: 20, or where the
method says so, fewer for a shape whose fewer launches last min_replay_us at
the GPU's peak memory bandwidth (harness/time/rotation.cpp).

    usage: ci/sweep_gpu_time.py SWEEP_YAML [--json] [--as-if-min-replay-us US]

--as-if-min-replay-us: the same samples as if the replays had followed that
rule (0: always 20 launches): what the rule saves, sample for sample.
"""
import argparse
import json
import math
import re
import sys

import yaml

REGIMES = ("rotated", "l2_resident", "cold")


def replay_launches(bytes_moved, bandwidth, per_graph, min_replay_us):
    if not min_replay_us or bandwidth <= 0 or bytes_moved <= 0:
        return per_graph
    return max(1, min(per_graph, math.ceil(min_replay_us * 1e-6 * bandwidth / bytes_moved)))


def rotated_launches(copies, launches):
    copies = max(1, copies)
    if copies > launches:
        return launches  # graphs of at most `launches` copies each, replayed in turn: about that many a sample
    return math.ceil(launches / copies) * copies


def method_of(sweep):
    text = sweep["timing"]["rotated"]
    per_graph = re.search(r"L = (\d+)", text) or re.search(r"ceil\((\d+)/K\)", text)
    min_replay = re.search(r"fewer move ([0-9.]+) us", text)
    return int(per_graph.group(1)) if per_graph else 20, float(min_replay.group(1)) if min_replay else 0.0


def shape_time(shape, sweep, bandwidth, per_graph, min_replay_us):
    """Seconds of GPU time the shape's samples stand for, by kind of measurement."""
    launches = replay_launches(shape["bytes_moved"], bandwidth, per_graph, min_replay_us)
    copies = (shape.get("rotation") or {}).get("copies", 1)
    flush_us = 2 * sweep["gpu"]["l2_bytes"] / bandwidth * 1e6 if bandwidth > 0 else 0.0
    per_sample = {"rotated": rotated_launches(copies, launches), "l2_resident": launches, "cold": 1}

    def seconds(regime, median, samples):
        extra = flush_us if regime == "cold" else 0.0
        return samples * (median * per_sample[regime] + extra) * 1e-6

    spent = {"screens": 0.0, "full figures": 0.0, "copy and reference": 0.0, "noise passes (estimated)": 0.0}
    for v in shape.get("variants", []):
        cut = v.get("screened_out") or {}
        for regime in REGIMES:
            if isinstance(cut.get(regime), dict):
                spent["screens"] += seconds(regime, cut[regime]["median"], cut[regime]["samples"])
            if f"{regime}_median_us" in v:
                spent["full figures"] += seconds(regime, v[f"{regime}_median_us"], v[f"{regime}_samples"])
    for what in ("copy", "reference_chain"):
        for regime in REGIMES:
            t = shape.get(f"{what}_{regime}_us")
            if t:
                spent["copy and reference"] += seconds(regime, t["median"], t["samples"])
    noise = shape.get("run_to_run_noise") or {}
    for regime in REGIMES:
        n = noise.get(regime)
        if not n:
            continue
        timed = sorted(v[f"{regime}_median_us"] for v in shape.get("variants", []) if f"{regime}_median_us" in v)
        copy = shape.get(f"copy_{regime}_us", {}).get("median", 0.0)
        medians = [copy] + timed[: n["variants"]]
        samples = sweep["timing"].get("repetitions", 70)
        spent["noise passes (estimated)"] += (n["passes"] - 1) * sum(seconds(regime, m, samples) for m in medians)
    return launches, spent


def load(path):
    """The sweep.yaml at `path`, parsed with libyaml where PyYAML has it (a sweep keeps every raw sample)."""
    with open(path) as f:
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def account(sweep, as_if_min_replay_us=None):
    """The GPU time of a parsed sweep.yaml's samples: per shape and kind of measurement, with totals."""
    gpu = sweep["gpu"]
    bandwidth = 2.0 * gpu["memory_clock_khz"] * 1e3 * gpu["memory_bus_bits"] / 8
    per_graph, min_replay_us = method_of(sweep)
    if as_if_min_replay_us is not None:
        min_replay_us = as_if_min_replay_us
    rows = []
    for shape in sweep["shapes"]:
        launches, spent = shape_time(shape, sweep, bandwidth, per_graph, min_replay_us)
        rows.append({"shape": shape["name"], "launches_per_replay": launches, **spent})
    kinds = [k for k in rows[0] if k not in ("shape", "launches_per_replay")] if rows else []
    totals = {k: sum(r[k] for r in rows) for k in kinds}
    return {"gpu": gpu["name"], "family": sweep["family"], "wall_s": sweep.get("wall_s"),
            "min_replay_us": min_replay_us, "shapes": rows, "totals_s": totals, "samples_s": sum(totals.values())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a markdown table")
    parser.add_argument("--as-if-min-replay-us", type=float, default=None,
                        help="count the samples as if replays had followed this rule (0: always 20 launches)")
    args = parser.parse_args()
    try:
        result = account(load(args.sweep), args.as_if_min_replay_us)
    except (OSError, KeyError, TypeError, AttributeError, yaml.YAMLError) as e:
        why = " ".join(str(e).split())
        sys.exit(f"sweep_gpu_time.py: {args.sweep}: not a GPU sweep.yaml this reads ({type(e).__name__}: {why})")
    if args.json:
        print(json.dumps({"sweep": args.sweep, **result}, indent=1))
        return
    rows, totals = result["shapes"], result["totals_s"]
    kinds = list(totals)
    print(f"{result['gpu']}, {result['family']}: wall {result['wall_s'] or 0:.1f} s; "
          f"GPU time its samples stand for {result['samples_s']:.1f} s"
          + (f" (replays as if min_replay_us were {args.as_if_min_replay_us:g})"
             if args.as_if_min_replay_us is not None else ""))
    print()
    print("| shape | launches a replay | " + " | ".join(f"{k} s" for k in kinds) + " |")
    print("|---|---:|" + "---:|" * len(kinds))
    for r in rows + [{"shape": "all", "launches_per_replay": "", **totals}]:
        print(f"| {r['shape']} | {r['launches_per_replay']} | " + " | ".join(f"{r[k]:.2f}" for k in kinds) + " |")


if __name__ == "__main__":
    main()
