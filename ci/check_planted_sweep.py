#!/usr/bin/env python3
"""Judges a sweep run with --plant-crash trap,out-of-bounds,spin from its output:
it must exit 1; every planted variant must have its failure row (trap and
out-of-bounds: a CUDA error, or the worker's death; spin: hung at its deadline);
no real variant may have one; and every shape must count all of its real
variants exact. Prints one line; exit 0 when all holds.

    usage: ci/check_planted_sweep.py LOG EXIT_CODE
"""
import re
import sys

EXPECTED = {
    "trap": re.compile(r"failed|CUDA_ERROR|died"),
    "out-of-bounds": re.compile(r"failed|CUDA_ERROR|died"),
    "spin": re.compile(r"^hung: .*hung: ran past its deadline"),
}


def main():
    log, rc = sys.argv[1], int(sys.argv[2])
    text = open(log, encoding="utf-8", errors="replace").read()
    problems = []
    if rc != 1:
        problems.append(f"exit {rc}, not 1")
    planted = {}
    real_failures = []
    shapes_exact = []
    for line in text.splitlines():
        cells = [c.strip() for c in re.split(r"\s{2,}", line.strip())]
        if len(cells) >= 3 and re.match(r"^[a-z0-9._-]+$", cells[0]) and re.match(r"^w\d+_", cells[1]):
            m = re.search(r"\.planted-([a-z-]+)$", cells[1])
            if m:
                planted.setdefault(m.group(1), []).append(" ".join(cells[2:]))
            elif len(cells) == 3:
                real_failures.append(line.strip())
        m = re.search(r"\s(\d+)/(\d+)\s*$", line)
        if m and not line.lstrip().startswith("w"):
            shapes_exact.append((int(m.group(1)), int(m.group(2))))
    for kind, pattern in EXPECTED.items():
        rows = planted.get(kind, [])
        if not rows:
            problems.append(f"no failure row for the planted {kind}")
        for row in rows:
            if not pattern.search(row):
                problems.append(f"planted {kind}: unexpected record '{row}'")
    if real_failures:
        problems.append(f"{len(real_failures)} real variants failed, e.g. {real_failures[0]}")
    for exact, total in shapes_exact:
        if exact != total - len(EXPECTED):
            problems.append(f"a shape counts {exact}/{total} exact, expected all but the {len(EXPECTED)} planted")
    if not shapes_exact:
        problems.append("no shape table in the log")
    if problems:
        print("FAILED: " + "; ".join(problems[:5]))
        return 1
    rows = sum(len(r) for r in planted.values())
    print(f"ok: {rows} planted records ({', '.join(f'{k}: {planted[k][0][:90]}' for k in EXPECTED)}); "
          f"every real variant exact on {len(shapes_exact)} shapes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
