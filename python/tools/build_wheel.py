"""Builds exactune's wheel: the Python package with the runtime library
(exactune/lib/libexactune_runtime.so) and the headers its torch ops compile
against (exactune/native/), so that an installed wheel needs no source tree.

    python3 python/tools/build_wheel.py --runtime build/libexactune_runtime.so --out dist

Needs setuptools and wheel in the interpreter that runs it (Debian:
python3-setuptools, python3-wheel); nothing is downloaded. Prints the wheel's path.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def stage(work, runtime):
    """A copy of python/ with the native parts added where the package looks for them (exactune._native)."""
    source = work / "python"
    shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("__pycache__", "tests", "tools", "*.egg-info",
                                                                            "build", "dist"))
    package = source / "exactune"
    (package / "lib").mkdir()
    # Without its debug information: what a wheel ships (the build keeps it for debugging).
    subprocess.run(["objcopy", "--strip-debug", str(runtime), str(package / "lib" / runtime.name)], check=True)
    headers = package / "native"
    shutil.copytree(ROOT / "include" / "exactune", headers / "include" / "exactune")
    for header in (ROOT / "families").glob("*/runtime/*.h"):
        target = headers / "families" / header.relative_to(ROOT / "families")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(header, target)
    return source


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runtime", type=Path, required=True, help="the built libexactune_runtime.so")
    parser.add_argument("--out", type=Path, required=True, help="folder to write the wheel to, created if need be")
    args = parser.parse_args()
    if not args.runtime.is_file():
        sys.exit(f"build_wheel.py: --runtime {args.runtime}: no such file (build the exactune_runtime target)")
    try:
        import setuptools.build_meta as backend
        import wheel  # noqa: F401  (setuptools before 70 builds wheels through it)
    except ImportError as missing:
        sys.exit(f"build_wheel.py: {sys.executable} lacks {missing.name} (Debian: python3-setuptools python3-wheel)")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="exactune-wheel-") as work:
        source = stage(Path(work), args.runtime.resolve())
        here = os.getcwd()
        os.chdir(source)
        try:
            name = backend.build_wheel(str(args.out.resolve()))
        finally:
            os.chdir(here)
    print(args.out.resolve() / name)


if __name__ == "__main__":
    main()
