"""The build backend of `pip install .` at the repository root (PEP 517; the
root pyproject.toml names it, with python/tools as its backend-path): one
command from a source tree to an installed package that needs neither the tree
nor an environment variable at run time.

It builds the runtime library, the torch-free binding and the CLI with CMake,
through ci/build.sh (into build-wheel/, or the folder given as the config
setting build-dir or by EXACTUNE_WHEEL_BUILD_DIR: an existing build folder is
built as it is configured), exports the kernels the tables serve with that CLI (exactune
export: the runtime loads them instead of compiling), and packs them with the
Python package as python/tools/build_wheel.py does. The build's own output
goes to standard error, as pip shows a backend's.

Why not scikit-build-core: it is not a Debian 12 package, and exactune's CI
installs from Debian alone (ci/install-deps.sh), offline from any package
index; this backend needs what build_wheel.py needs (setuptools, and wheel
with a setuptools older than 70.1), so `pip install --no-build-isolation .`
works with Debian's python3-setuptools and python3-wheel, and with build
isolation pip fetches a setuptools.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_wheel as wheel_packing  # noqa: E402  (beside this file)

ROOT = Path(__file__).resolve().parents[2]


def _build_folder(config_settings):
    setting = (config_settings or {}).get("build-dir") or os.environ.get("EXACTUNE_WHEEL_BUILD_DIR")
    return Path(setting).resolve() if setting else ROOT / "build-wheel"


def _run(command, **kwargs):
    command = [str(part) for part in command]
    print("exactune wheel: " + " ".join(command), file=sys.stderr, flush=True)
    try:
        subprocess.run(command, check=True, stdout=sys.stderr, **kwargs)
    except FileNotFoundError as missing:
        sys.exit(f"exactune wheel: {missing.filename} is not installed (it builds the runtime: see README.md)")
    except subprocess.CalledProcessError as failed:
        sys.exit(f"exactune wheel: `{' '.join(command)}` failed with exit {failed.returncode} (its output is above)")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel_packing.require_wheel_tools()  # before the build's minutes, not after them
    build = _build_folder(config_settings)
    # The project's own build script (compiler cache, generator, toolkit). A fresh folder is configured for the
    # wheel: no test suites, and this Python for the torch-free binding; an existing one is built as configured.
    env = {**os.environ, "EXACTUNE_BUILD_DIR": str(build)}
    if not (build / "CMakeCache.txt").is_file():
        env["EXACTUNE_CMAKE_ARGS"] = f"-DEXACTUNE_BUILD_TESTS=OFF -DPython3_EXECUTABLE={sys.executable}"
    _run(["bash", ROOT / "ci" / "build.sh"], env=env)
    export = build / "wheel-export"
    shutil.rmtree(export, ignore_errors=True)
    _run([build / "exactune", "export", "--out", export])
    # The inner setuptools build prints to standard output; pip reads the wheel's name from the return value only.
    stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        return wheel_packing.build(build / "libexactune_runtime.so", export, Path(wheel_directory))
    finally:
        sys.stdout = stdout
