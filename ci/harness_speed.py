#!/usr/bin/env python3
"""The harness's speed on one GPU, from the logs ci/speed.sh leaves: wall time
of each sweep (strategy x cold/warm cache) with its stages, the agreement of the
two strategies, the gate mode and the multi-GPU run. Prints harness_speed.json,
which summary.md shows when it lies beside the family's sweep.yaml
(harness/report/harness_speed.cpp reads it).

    usage: ci/harness_speed.py SPEED_DIR --family F --gpus N
"""
import argparse
import json
import pathlib
import re
import sys

import yaml

STAGE_LINE = re.compile(r"^\[([a-z-]+)\] (\d+)/(\d+) \(\d+%\), ([0-9.]+) s elapsed")


def read(path, default=None):
    try:
        return path.read_text()
    except OSError:
        return default


def stage_seconds(err_text):
    """The last progress line of each stage: how many steps it made and how long it took."""
    stages = {}
    for line in (err_text or "").splitlines():
        m = STAGE_LINE.match(line.strip())
        if m:
            stages[m.group(1)] = {"steps": int(m.group(3)), "s": float(m.group(4))}
    return stages


def sweep_facts(folder):
    sweep = folder / "sweep.yaml"
    if not sweep.exists():
        return {}
    data = yaml.safe_load(sweep.read_text())
    shapes = data.get("shapes", [])
    variants = sum(len(s.get("variants", [])) for s in shapes)
    exact = sum(1 for s in shapes for v in s.get("variants", []) if v.get("exact"))
    timed = sum(1 for s in shapes for v in s.get("variants", []) if v.get("exact") and "rotated_median_us" in v)
    return {"gpu": data.get("gpu", {}).get("name", "?"), "shapes": len(shapes), "variants": variants,
            "exact": exact, "fully_timed": timed, "created": data.get("created", "")}


def run(speed, name):
    wall = read(speed / f"{name}.wall")
    rc = read(speed / f"{name}.rc")
    if wall is None:
        return None
    return {"wall_s": float(wall), "exit": int(rc or 1), "stages": stage_seconds(read(speed / f"{name}.err"))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("speed_dir", type=pathlib.Path)
    parser.add_argument("--family", required=True)
    parser.add_argument("--gpus", type=int, required=True)
    args = parser.parse_args()
    speed = args.speed_dir
    out = {"source": "ci/speed.sh", "family": args.family, "sweeps": [], "agreement": [], "gate_mode": None,
           "devices": None}
    # The fast strategy's name, from whichever of its runs left a sweep.yaml.
    fast_name = "default"
    for cache in ("cold", "warm"):
        recorded = yaml.safe_load(read(speed / f"fast-{cache}" / "sweep.yaml", "{}") or "{}") or {}
        if isinstance(recorded.get("strategy"), dict):
            fast_name = recorded["strategy"].get("name", fast_name)
    for strategy in ("fast", "exhaustive"):
        for cache in ("cold", "warm"):
            r = run(speed, f"sweep-{strategy}-{cache}")
            if r is None:
                continue
            facts = sweep_facts(speed / f"{strategy}-{cache}")
            if facts.get("gpu") and not out.get("gpu"):
                out["gpu"], out["measured"] = facts["gpu"], facts["created"]
            name = fast_name if strategy == "fast" else "exhaustive"
            out["sweeps"].append({"strategy": name, "cache": cache, **r, **facts})
    for cache in ("cold", "warm"):
        text = read(speed / f"agreement-{cache}.md")
        if text:
            # summary.md gives the section its own headings.
            table = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
            out["agreement"].append({"pair": cache, "markdown": table.strip()})
    sweep, compare = run(speed, "gate-sweep"), run(speed, "gate-compare")
    if sweep and compare:
        out["gate_mode"] = {"wall_s": round(sweep["wall_s"] + compare["wall_s"], 1), "sweep_s": sweep["wall_s"],
                            "compare_s": compare["wall_s"], "gate_exit": compare["exit"],
                            "verdict": (read(speed / "gate-compare.log", "").strip().splitlines() or ["?"])[-1]}
    every, one = run(speed, "devices-all"), run(speed, "devices-one")
    if every and one:
        out["devices"] = {"gpus": args.gpus, "all_wall_s": every["wall_s"], "all_exit": every["exit"],
                          "one_wall_s": one["wall_s"], "speedup": round(one["wall_s"] / every["wall_s"], 2)}
    else:
        out["devices"] = {"gpus": args.gpus, "speedup": None,
                          "why_not": f"the machine that measured had {args.gpus} GPU; no 2-GPU machine was lent "
                                     "in that session"}
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
