"""The wheel as a user gets it (ctest: python_wheel_in_a_fresh_venv): the kernel
export made by `exactune export`, the wheel built by build_wheel.py with it,
installed into a fresh virtual environment with no index and no source tree in
sight, then imported: it carries the torch ops' sources and, where it was
built, the torch-free binding, which loads there without torch; the tables
answer through the runtime library the wheel carries, that library finds the
export beside itself, whose index names a kernel of every family for every
architecture of the tables and cubins that are all there, and exactune.torch,
without torch there, says so.

    python3 python/tools/check_wheel.py --runtime build/libexactune_runtime.so --exactune build/exactune \
        --work build/wheel-check [--from-source]

--from-source builds the wheel as `pip install .` does at the repository root
(the root pyproject.toml's backend, python/tools/exactune_wheel_backend.py),
with pip in a virtual environment of its own, on the build folder that holds
--runtime (ctest: python_wheel_from_the_source_tree).

Exits 1 naming the step that failed."""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent

# Run inside the virtual environment, from a folder outside the source tree.
PROBE = r"""
import exactune, exactune.runtime as runtime, exactune._native as native
lib = native.runtime_library()
assert lib.parent == native.PACKAGE_DIR / "lib", f"the runtime library came from {lib}, not from the wheel"
assert (native.header_roots()[0] / "exactune" / "runtime.h").is_file(), native.header_roots()
if BINDING:  # the torch-free binding: in the wheel, and it loads where no torch is
    import importlib.machinery, importlib.util
    found = sorted((native.PACKAGE_DIR / "lib").glob("_exactune_dlpack.*.so"))
    assert found, "the wheel lacks the torch-free binding built beside the runtime"
    loader = importlib.machinery.ExtensionFileLoader("_exactune_dlpack", str(found[0]))
    binding = importlib.util.module_from_spec(importlib.util.spec_from_loader("_exactune_dlpack", loader))
    loader.exec_module(binding)
    assert callable(binding.init) and callable(binding.layer_norm_modulate), dir(binding)
    print(f"the torch-free binding loads without torch: {found[0].name}")
carried = {p.name for p in (native.PACKAGE_DIR / "csrc").iterdir()}
assert carried >= OP_SOURCES, f"the wheel lacks the torch ops' sources {sorted(OP_SOURCES - carried)}"
device, offered = runtime.candidates("layer_norm_modulate", "NVIDIA H200", 9, 0, 132, 2240, 2048)
assert offered and "NVIDIA H200" in device, (device, offered)
print(f"exactune {exactune.__version__} from {native.PACKAGE_DIR}: NVIDIA H200 at hidden 2240 -> {offered[0].variant}")
try:
    import exactune.torch
except ModuleNotFoundError as e:
    assert e.name == "torch" and "exactune.torch needs PyTorch" in str(e), repr(e)
    print("exactune.torch without torch:", e)
else:
    raise AssertionError("exactune.torch imported in a virtual environment without torch")

exported = runtime.kernel_export()
folder = native.PACKAGE_DIR / "lib" / "exactune_export"
assert exported and exported["folder"] == str(folder), (exported, folder)
rows = [line.split("\t") for line in (folder / "exactune_export.tsv").read_text().splitlines()[3:]]
assert len(rows) == exported["kernels"], (len(rows), exported)
held = {(row[1], row[2]) for row in rows}
assert held == EXPECTED, f"the export holds {sorted(held)}, the tables name {sorted(EXPECTED)}"
assert all((folder / row[6]).is_file() for row in rows), "a cubin the index names is not in the wheel"
print(f"the runtime's kernel export: {exported['kernels']} kernels of {len(held)} (family, arch) pairs, "
      f"{exported['compiler']}, beside the runtime library")
"""


def families_and_archs(exactune):
    """The (family, arch) pairs the export must hold: every family the tables hold, on each architecture they name
    (exactune export --dry-run prints them)."""
    table = step("listing what the export holds", [str(exactune), "export", "--dry-run"])
    pairs = set()
    for line in table.splitlines()[2:]:
        fields = line.split()
        if len(fields) >= 2 and fields[1].startswith("sm_"):
            pairs.add((fields[0], fields[1]))
    return pairs


def step(name, command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"check_wheel.py: {name} failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout


def wheel_from_source(args):
    """The wheel `pip wheel .` makes at the repository root, offline, on the build folder of --runtime."""
    builder = args.work / "builder"
    # Its own pip, with the system's setuptools (and wheel) in sight: the backend's requirements, nothing fetched.
    step("making the builder's virtual environment", [sys.executable, "-m", "venv", "--system-site-packages",
                                                       str(builder)])
    env = {**os.environ, "EXACTUNE_WHEEL_BUILD_DIR": str(args.runtime.parent.resolve()),
           "EXACTUNE_CACHE_DIR": str(args.work / "cache")}
    step("building the wheel from the source tree (pip wheel .)",
         [str(builder / "bin" / "python"), "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps",
          "--no-index", "-w", str(args.work / "dist"), str(TOOLS.parents[1])], env=env)
    wheels = sorted((args.work / "dist").glob("exactune-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"check_wheel.py: pip wheel . left {len(wheels)} exactune wheels in {args.work / 'dist'}")
    return wheels[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runtime", type=Path, required=True, help="the built libexactune_runtime.so")
    parser.add_argument("--exactune", type=Path, required=True, help="the built exactune, which makes the export")
    parser.add_argument("--work", type=Path, required=True, help="scratch folder, emptied first")
    parser.add_argument("--from-source", action="store_true",
                        help="build the wheel as `pip install .` does at the repository root, not with build_wheel.py")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    expected = families_and_archs(args.exactune)
    if args.from_source:
        wheel = wheel_from_source(args)
    else:
        print(step("exporting the kernels", [str(args.exactune), "export", "--out", str(args.work / "export"),
                                             "--cache-dir", str(args.work / "cache")]).splitlines()[-1])
        wheel = Path(step("building the wheel", [sys.executable, str(TOOLS / "build_wheel.py"), "--runtime",
                                                 str(args.runtime), "--export", str(args.work / "export"), "--out",
                                                 str(args.work / "dist")]).split()[-1])
    venv = args.work / "venv"
    step("making a virtual environment", [sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    step("installing the wheel", [str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                                  str(wheel)])
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("EXACTUNE_")}
    print(f"{wheel.name} ({wheel.stat().st_size / 1e6:.1f} MB)")
    # Every source and header of the torch ops (exactune.torch compiles them on its first import).
    op_sources = sorted(p.name for p in (TOOLS.parent / "exactune" / "csrc").iterdir() if p.suffix in (".cpp", ".hpp"))
    binding = any(args.runtime.parent.glob("_exactune_dlpack.*.so"))
    probe = (f"EXPECTED = set({sorted(expected)!r})\nOP_SOURCES = set({op_sources!r})\nBINDING = {binding}\n"
             + PROBE)
    print(step("importing it", [str(python), "-c", probe], env=clean, cwd=args.work), end="")


if __name__ == "__main__":
    main()
