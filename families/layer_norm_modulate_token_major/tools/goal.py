#!/usr/bin/env python3
"""The token-major family's goal from two sweeps of one GPU run: for each shape,
the fastest exact variant of each read (copy, tile, lanes) against the
contiguous family's fastest on the same shape with x contiguous (hot, rotated
medians), and their ratio (the goal: in place at most 1.1x contiguous).

    usage: families/layer_norm_modulate_token_major/tools/goal.py TOKEN_MAJOR_SWEEP.yaml CONTIGUOUS_SWEEP.yaml
Shapes are matched by (batch, tokens, hidden). Exits 1 if a file lacks a shape
or a shape has no exact variant, 0 otherwise (the goal is reported, not gated).
"""
import sys

import yaml

GOAL = 1.1


def fastest(variants, keep=lambda v: True):
    timed = [v for v in variants if v.get("exact") and v.get("rotated_median_us") is not None and keep(v)]
    return min(timed, key=lambda v: v["rotated_median_us"]) if timed else None


def main(token_major_path, contiguous_path):
    token_major = yaml.safe_load(open(token_major_path))
    contiguous = yaml.safe_load(open(contiguous_path))
    key = lambda s: (s["batch"], s["tokens"], s["hidden"])
    baseline = {key(s): s for s in contiguous["shapes"]}
    status = 0
    for shape in token_major["shapes"]:
        other = baseline.get(key(shape))
        best_contiguous = fastest(other["variants"]) if other else None
        if best_contiguous is None:
            print(f"{shape['name']}: no exact contiguous variant on {key(shape)} in {contiguous_path}")
            status = 1
            continue
        line = [f"{shape['name']} {key(shape)}: contiguous {best_contiguous['rotated_median_us']:.2f} us "
                f"({best_contiguous['variant']}), copy roofline {shape['copy_rotated_us']['median']:.2f}"]
        for read in ("copy", "tile", "lanes"):
            best = fastest(shape["variants"], lambda v: v["params"]["read"] == read)
            if best is None:
                line.append(f"{read}: none exact")
                continue
            ratio = best["rotated_median_us"] / best_contiguous["rotated_median_us"]
            line.append(f"{read} {best['rotated_median_us']:.2f} us ({best['variant']}) = {ratio:.3f}x")
        print("; ".join(line))
    return status


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
