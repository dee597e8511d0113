#!/usr/bin/env python3
"""Compares the records of two sweep.yaml files: the same shapes and, per shape,
the same variants with the same registers, spills, exactness, cases, failure and
the same set of timed regimes. Timings themselves are measurements and differ
between runs; they are not compared. Exit 0 when the records agree, 1 (listing
the first differences) when not. No YAML library: the GPU machine may lack one,
and the sweep writer puts one key per line.

    usage: ci/compare_sweep_records.py A/sweep.yaml B/sweep.yaml
"""
import re
import sys

RECORD_KEYS = ("registers", "spill_bytes", "exact", "cases", "failure_kind", "failure")


def records(path):
    """{(shape, variant): {key: value}} with the timed regimes as a key of their own."""
    shape, variant, out = None, None, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^  - name: (.+)$", line)
            if m:
                shape, variant = m.group(1).strip(), None
                continue
            m = re.match(r"^      - variant: (.+)$", line)
            if m:
                variant = m.group(1).strip()
                out[(shape, variant)] = {"timed": set()}
                continue
            if variant is None:
                continue
            m = re.match(r"^        ([a-z_0-9]+): (.*)$", line)
            if not m:
                continue
            key, value = m.groups()
            if key in RECORD_KEYS:
                out[(shape, variant)][key] = value
            elif key.endswith("_median_us"):
                out[(shape, variant)]["timed"].add(key[: -len("_median_us")])
    return out


def main():
    a, b = records(sys.argv[1]), records(sys.argv[2])
    differences = []
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            differences.append(f"{key}: only in {'the first' if key in a else 'the second'}")
        elif a[key] != b[key]:
            differences.append(f"{key}: {a[key]} != {b[key]}")
    if not a:
        differences.append(f"{sys.argv[1]}: no variant records")
    if differences:
        print(f"{len(differences)} differences; first ones:")
        print("\n".join(differences[:10]))
        return 1
    exact = sum(r.get("exact") == "true" for r in a.values())
    print(f"same records: {len(a)} (shape, variant) pairs, {exact} exact, "
          f"{sum(bool(r['timed']) for r in a.values())} timed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
