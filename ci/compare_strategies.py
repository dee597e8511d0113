#!/usr/bin/env python3
"""How often a fast search strategy chooses as exhaustive search does (issue 14).

Takes two report folders of the same shapes swept on the same GPU, one with
`--strategy exhaustive` and one with a fast strategy, each holding the
heuristics.yaml and sweep.yaml a sweep writes (or folders holding several such,
one per family, matched by their path). Writes Markdown to stdout: per choice of
heuristics.yaml (one per bucket, named by its evidence shape) exhaustive's
choice, fast's, whether they are equal, and if not how much slower fast's
choice is in exhaustive's own figures (its sweep.yaml, in the policy's regimes)
against the noise that sweep recorded for the two figures (their spread and the
shape's run-to-run noise, at least the chooser's 2%): "equal", "within noise" or
"worse by X% (noise Y%)". The last line is the summary: n of N equal, m within noise.

    usage: ci/compare_strategies.py EXHAUSTIVE_DIR FAST_DIR
Exit 0 when compared (whatever the agreement), 2 on a folder it cannot read.
"""
import argparse
import pathlib
import sys

import yaml

# The chooser's floor (ChooserOptions::min_noise): two figures closer than this tie.
MIN_NOISE = 0.02
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Unreadable(Exception):
    pass


def load(path):
    try:
        return yaml.load(path.read_text(), Loader=LOADER)
    except (OSError, yaml.YAMLError) as e:
        raise Unreadable(f"{path}: {e}") from e


def report_folders(root):
    """The folders under `root` (itself included) holding a heuristics.yaml, by their path relative to it."""
    found = {p.parent.relative_to(root): p.parent for p in sorted(root.rglob("heuristics.yaml"))}
    if not found:
        raise Unreadable(f"{root}: no heuristics.yaml in it or below it")
    return found


def policy_regimes(policy):
    return {"rotated": ["rotated"], "cold": ["cold"], "both": ["rotated", "cold"],
            "l2_resident": ["l2_resident"]}[policy]


def ranked_figure(shape, variant, regimes):
    """The chooser's figure of `variant` on `shape` and its noise; None when not timed in every regime."""
    over_copy = len(regimes) > 1 and all((shape.get(f"copy_{r}_us") or {}).get("median", 0) > 0 for r in regimes)
    figure, noise = 0.0, MIN_NOISE
    for r in regimes:
        median = variant.get(f"{r}_median_us")
        if not median:
            return None
        figure += median / shape[f"copy_{r}_us"]["median"] if over_copy else median
        noise = max(noise, (variant[f"{r}_max_us"] - variant[f"{r}_min_us"]) / median)
        noise = max(noise, ((shape.get("run_to_run_noise") or {}).get(r) or {}).get("noise", 0))
    return figure, noise


def fully_timed(sweep):
    return sum(1 for s in sweep.get("shapes") or [] for v in s.get("variants") or []
               if v.get("exact") and any(k.endswith("_median_us") for k in v))


def compare_family(exhaustive_dir, fast_dir):
    """Markdown for one family's pair of folders, and its (equal, within noise, worse) counts."""
    exh_h, fast_h = load(exhaustive_dir / "heuristics.yaml"), load(fast_dir / "heuristics.yaml")
    exh_sweep, fast_sweep = load(exhaustive_dir / "sweep.yaml"), load(fast_dir / "sweep.yaml")
    policy = exh_h.get("policy", "l2_resident")
    regimes = policy_regimes(policy)
    shapes = {s["name"]: s for s in exh_sweep.get("shapes") or []}
    fast_choices = {c["shape"]: c for c in fast_h["device"]["choices"]}

    def strategy(sweep):
        return (sweep.get("strategy") or {}).get("name", "exhaustive (not recorded)")

    lines = [f"## {exh_h['family']} on {exh_h['device']['name']}, policy {policy}", "",
             f"exhaustive: `{exhaustive_dir}` ({strategy(exh_sweep)}, wall {exh_sweep.get('wall_s', 0):.0f} s, "
             f"{fully_timed(exh_sweep)} variants timed fully); fast: `{fast_dir}` ({strategy(fast_sweep)}, wall "
             f"{fast_sweep.get('wall_s', 0):.0f} s, {fully_timed(fast_sweep)} variants timed fully)", "",
             "| shape | exhaustive's choice | fast's choice | equal | verdict |", "|---|---|---|---|---|"]
    counts = [0, 0, 0]
    for choice in exh_h["device"]["choices"]:
        shape_name = choice["shape"]
        mine = choice["variant"]
        theirs = fast_choices.get(shape_name, {}).get("variant")
        if theirs == mine:
            verdict, counts[0] = "equal", counts[0] + 1
        else:
            shape = shapes.get(shape_name, {})
            variants = {v["variant"]: v for v in shape.get("variants") or []}
            best = ranked_figure(shape, variants.get(mine, {}), regimes)
            other = ranked_figure(shape, variants[theirs], regimes) if theirs in variants else None
            if theirs is None:
                verdict, counts[2] = "no choice for this shape in the fast sweep", counts[2] + 1
            elif best is None or other is None:
                verdict, counts[2] = "fast's choice not timed in the exhaustive sweep", counts[2] + 1
            else:
                slower = other[0] / best[0] - 1
                noise = max(best[1], other[1])
                if slower <= noise:
                    verdict, counts[1] = f"within noise ({slower:+.1%}, noise {noise:.1%})", counts[1] + 1
                else:
                    verdict, counts[2] = f"worse by {slower:.1%} (noise {noise:.1%})", counts[2] + 1
        lines.append(f"| {shape_name} | {mine} | {theirs or '—'} | {'yes' if theirs == mine else 'no'} | {verdict} |")
    return "\n".join(lines) + "\n", counts


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("exhaustive", type=pathlib.Path)
    parser.add_argument("fast", type=pathlib.Path)
    args = parser.parse_args(argv)
    try:
        exhaustive, fast = report_folders(args.exhaustive), report_folders(args.fast)
        missing = sorted(str(k) for k in exhaustive if k not in fast)
        if missing:
            raise Unreadable(f"{args.fast}: no report folder {', '.join(missing)} as in {args.exhaustive}")
        out, totals = ["# Search strategies: exhaustive against fast", ""], [0, 0, 0]
        for key, folder in exhaustive.items():
            text, counts = compare_family(folder, fast[key])
            out.append(text)
            totals = [a + b for a, b in zip(totals, counts)]
    except (Unreadable, KeyError, TypeError) as e:
        print(f"compare_strategies: {e if isinstance(e, Unreadable) else f'a file lacks {e}'}", file=sys.stderr)
        return 2
    print("\n".join(out))
    print(f"{totals[0]} of {sum(totals)} choices equal, {totals[1]} within noise, {totals[2]} worse")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
