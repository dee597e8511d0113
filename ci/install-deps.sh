#!/usr/bin/env bash
# Installs the build and test dependencies on a Debian 12 machine (as root, or
# through sudo). The CUDA toolkit (nvcc, NVRTC) is expected at /usr/local/cuda.
# Everything comes from apt, the Python test modules too: Debian 12's Python is
# externally managed (PEP 668), so pip into it is refused, and nothing here
# uses pip.
set -euo pipefail
# python3-setuptools, -wheel and -venv: the wheel's test builds it and installs
# it into a virtual environment with the system Python (tests/CMakeLists.txt).
# ccache: a machine that built exactune before rebuilds a clean clone from its
# cache (ci/build.sh), a few minutes of the CI run's build.
# python3-dev: Python's headers, for the torch-free binding's module
# (cmake/python_binding.cmake), which the wheel carries and CI tests.
packages=(cmake ninja-build g++ ccache libfmt-dev libyaml-cpp-dev libbenchmark-dev catch2 libcli11-dev
  nlohmann-json3-dev python3-setuptools python3-wheel python3-venv python3-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# The Python modules the CPU tests import (tests/CMakeLists.txt: the runtime
# report's check, the strategies' script, the pytest skip probe), judged by the
# python3 that CMake and the tests run, and their Debian packages where it
# lacks them.
python_modules=(yaml:python3-yaml pytest:python3-pytest)
python_missing() {  # the modules that python3 cannot import, as module:package
  local entry
  for entry in "${python_modules[@]}"; do
    python3 -c "import ${entry%%:*}" 2>/dev/null || echo "$entry"
  done
}
if ! command -v python3 >/dev/null; then
  missing+=(python3)
  for entry in "${python_modules[@]}"; do missing+=("${entry#*:}"); done
else
  for entry in $(python_missing); do missing+=("${entry#*:}"); done
fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "error: the CUDA toolkit (nvcc, NVRTC) was not found at /usr/local/cuda" >&2
  exit 1
fi
# apt installs for the system Python (/usr/bin/python3); a python3 of its own
# first on the PATH (a pyenv, a virtual environment) must bring the modules
# itself: say so instead of failing later in ctest.
still=$(python_missing | cut -d: -f1 | paste -sd' ')
if [ -n "$still" ]; then
  echo "error: $(command -v python3) cannot import: $still" >&2
  echo "  (apt installed the Debian packages for /usr/bin/python3; put it first on the PATH or add the modules to that python3)" >&2
  exit 1
fi
