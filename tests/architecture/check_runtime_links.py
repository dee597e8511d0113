#!/usr/bin/env python3
"""What a serving framework loads holds the runtime and nothing of the tuning
front end: no YAML reader, no benchmark library, no host compiler and no
subprocess code; and it needs no CUDA toolkit library (NVRTC is opened at run
time, from the toolkit or the nvidia-cuda-nvrtc wheel). The stages' libraries would let any of them in through one
stray call; this check reads the built shared library itself (its dynamic
dependencies and its symbol table) and names what it finds.

    python3 tests/architecture/check_runtime_links.py <libexactune_runtime.so>
"""
import re
import subprocess
import sys

# Libraries the runtime must not need, and symbols it must not hold (demangled).
FORBIDDEN_LIBRARIES = re.compile(r"yaml-cpp|benchmark|CLI11|nvrtc|cudart")
FORBIDDEN_SYMBOLS = {
    "the YAML reader": re.compile(r"\bYAML::"),
    "the benchmark library": re.compile(r"\bbenchmark::"),
    "the host compiler": re.compile(r"\bexactune::(compile_for_host|host_exec::)"),
    "the command line": re.compile(r"\bCLI::"),
}


def run(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    library = sys.argv[1]
    found = []
    for line in run("readelf", "-d", library).splitlines():
        match = re.search(r"\(NEEDED\).*\[(.+)\]", line)
        if match and FORBIDDEN_LIBRARIES.search(match.group(1)):
            found.append(f"{library} needs {match.group(1)}")
    symbols = run("nm", "-C", library).splitlines()
    if not symbols:
        found.append(f"{library} has no symbol table to check (stripped?)")
    for what, pattern in FORBIDDEN_SYMBOLS.items():
        hits = [line.split(" ", 2)[-1] for line in symbols if pattern.search(line)]
        if hits:
            found.append(f"{library} holds {len(hits)} symbol(s) of {what}, e.g. {hits[0]}")
    for problem in found:
        print(problem)
    if found:
        return 1
    print(f"{library}: no YAML reader, benchmark library, host compiler, command line or toolkit library in it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
