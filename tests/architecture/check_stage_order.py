#!/usr/bin/env python3
"""The core's folders are the stages of the data flow, and a stage builds on the
stages before it only: no file of harness/ includes a header of a later stage,
and no public header (include/exactune/) includes one of harness/ at all. A
back arrow ties an early stage to a late one, so that a runtime which needs the
early one links the late one too; this check fails on the first one, naming
file and line.

    python3 tests/architecture/check_stage_order.py <repository root>
"""
import pathlib
import re
import sys

# In the order of the data flow. A folder of harness/ that is not listed here
# fails the check: a new stage takes its place in the order first.
STAGES = [
    "util",            # text, files, hashes, globs, YAML reading and writing
    "shapes",          # problems
    "space",           # variants, and the plan of what to compile
    "compile",         # NVRTC, the cache, the compilers' registry
    "compile/host",    # the host C++ compiler (target "host")
    "backends/gpu",    # executes on a GPU
    "backends/cpu",    # executes what compile/host built
    "supervise",       # workers, journals, deadlines
    "verify",          # bit-exactness
    "runtime",         # tables and kernels served to a caller
    "capi",            # the GPU session of the families' C ABIs
    "time",            # timing regimes and statistics
    "strategies",      # which exact variants are timed fully
    "store",           # every committed file and its model
    "choose",          # the chooser
    "report",          # summary, heatmaps, generated header and JSON
    "gate",            # the CI gate
    "sweep",           # the runs that drive the stages
    "cli",             # the commands
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def stage_of(path):
    """The stage a path below harness/ belongs to: its longest listed folder."""
    parts = pathlib.PurePosixPath(path).parts
    for length in (2, 1):
        folder = "/".join(parts[:length])
        if folder in STAGES:
            return folder
    return None


def problems(root):
    harness = root / "harness"
    found = []
    for path in sorted(harness.rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".h"):
            continue
        relative = path.relative_to(harness).as_posix()
        mine = stage_of(relative)
        if mine is None:
            found.append(f"harness/{relative}: its folder is no stage of {__file__}'s list")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or "/" not in match.group(1):
                continue
            theirs = stage_of(match.group(1))
            if theirs is None or STAGES.index(theirs) <= STAGES.index(mine):
                continue
            found.append(f"harness/{relative}:{number}: includes {match.group(1)}, of stage {theirs}, "
                         f"which comes after {mine}")
    for path in sorted((root / "include" / "exactune").glob("*")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if match and stage_of(match.group(1)) is not None:
                found.append(f"include/exactune/{path.name}:{number}: a public header includes harness/'s "
                             f"{match.group(1)}")
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    found = problems(pathlib.Path(sys.argv[1]))
    for problem in found:
        print(problem)
    if found:
        print(f"{len(found)} include(s) against the order of the stages")
        return 1
    print(f"every include of harness/ follows the order of its {len(STAGES)} stages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
