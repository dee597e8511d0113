"""Where exactune's native parts are: the runtime library (libexactune_runtime.so,
built by CMake) and the headers its torch ops compile against.

The runtime library is, in order: $EXACTUNE_RUNTIME_LIB; `lib/` inside this
package (a wheel that carries it); the build folder of the source tree this
package sits in (an editable install, `pip install -e python/`, or
PYTHONPATH=python). The headers are in `native/` inside this package (a wheel),
else in that source tree. The source tree is $EXACTUNE_SOURCE_DIR, else the
folder two levels above this package.
"""

import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
RUNTIME_LIBRARY = "libexactune_runtime.so"


class NativeLibraryMissing(ImportError):
    pass


# NVRTC, which the runtime opens when a first sight of a problem compiles
# (harness/compile/nvrtc_library.hpp): the major version of the CUDA its
# headers were, where a toolkit keeps it, and where the nvidia-cuda-nvrtc wheel
# does (CUDA 13's wheel in nvidia/cu13/lib, CUDA 12's in nvidia/cuda_nvrtc/lib).
NVRTC_MAJOR = 13
TOOLKIT_ROOTS = ("/usr/local/cuda",)
# The dynamic loader's cache, which the runtime's dlopen of the bare name reads.
LD_SO_CACHE = Path("/etc/ld.so.cache")
WHEEL_NVRTC_FOLDERS = ("nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib")


def toolkit_nvrtc():
    """The toolkit's libnvrtc.so.<major>, under $CUDA_HOME or a usual root, or None."""
    name = f"libnvrtc.so.{NVRTC_MAJOR}"
    for root in (os.environ.get("CUDA_HOME"), *TOOLKIT_ROOTS):
        if root and (Path(root) / "lib64" / name).is_file():
            return Path(root) / "lib64" / name
    return None


def loader_nvrtc():
    """The libnvrtc.so.<major> the runtime's dlopen of the bare name finds before any toolkit root: on
    LD_LIBRARY_PATH, or named in the loader's cache (a path, or the bare name), else None."""
    name = f"libnvrtc.so.{NVRTC_MAJOR}"
    for folder in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if folder and (Path(folder) / name).is_file():
            return Path(folder) / name
    try:
        if name.encode() in LD_SO_CACHE.read_bytes():
            return Path(name)
    except OSError:
        pass
    return None


def wheel_nvrtc(search_path=None):
    """The nvidia-cuda-nvrtc wheel's libnvrtc.so.<major> on `search_path` (sys.path), or None."""
    name = f"libnvrtc.so.{NVRTC_MAJOR}"
    for entry in sys.path if search_path is None else search_path:
        for folder in WHEEL_NVRTC_FOLDERS:
            candidate = Path(entry or ".") / folder / name
            if candidate.is_file():
                return candidate.resolve()
    return None


def point_runtime_at_nvrtc(search_path=None):
    """With no NVRTC the runtime finds itself (EXACTUNE_NVRTC_LIBRARY, the loader's path, a toolkit's) it
    compiles with the nvidia-cuda-nvrtc wheel's: sets EXACTUNE_NVRTC_LIBRARY to it (the runtime reads it at its
    first compile). The runtime's own search comes first, in its order (harness/compile/nvrtc_library.hpp), so
    that a toolkit on LD_LIBRARY_PATH is not displaced. Returns the library the runtime will be pointed at, or
    None to leave it be."""
    if os.environ.get("EXACTUNE_NVRTC_LIBRARY") or loader_nvrtc() or toolkit_nvrtc():
        return None
    found = wheel_nvrtc(search_path)
    if found:
        os.environ["EXACTUNE_NVRTC_LIBRARY"] = str(found)
    return found


def source_dir():
    configured = os.environ.get("EXACTUNE_SOURCE_DIR")
    root = Path(configured) if configured else PACKAGE_DIR.parent.parent
    if not (root / "include" / "exactune" / "runtime.h").is_file():
        raise NativeLibraryMissing(
            f"exactune's source tree is not at {root} (no include/exactune/runtime.h): set EXACTUNE_SOURCE_DIR to the "
            "repository, or install the package editable from it (pip install -e python/)")
    return root


def header_roots():
    """The folders the torch ops' sources include from: `<root>/include` (exactune's public headers) and
    `<root>/families` (each family's C header), root being `native/` inside this package (a wheel that carries
    them, python/tools/build_wheel.py), else the source tree."""
    packaged = PACKAGE_DIR / "native"
    root = packaged if (packaged / "include" / "exactune" / "runtime.h").is_file() else source_dir()
    return [root / "include", root / "families"]


def runtime_library():
    configured = os.environ.get("EXACTUNE_RUNTIME_LIB")
    if configured:
        if not Path(configured).is_file():
            raise NativeLibraryMissing(f"EXACTUNE_RUNTIME_LIB={configured}: no such file")
        # Absolute: the op library is linked, and later loaded, from other folders.
        return Path(configured).resolve()
    candidates = [PACKAGE_DIR / "lib" / RUNTIME_LIBRARY]
    try:
        candidates.append(source_dir() / "build" / RUNTIME_LIBRARY)
    except NativeLibraryMissing:
        pass
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise NativeLibraryMissing(
        f"{RUNTIME_LIBRARY} not found (looked at {', '.join(map(str, candidates))}): build it with "
        "`cmake -S . -B build && cmake --build build --target exactune_runtime`, or set EXACTUNE_RUNTIME_LIB")
