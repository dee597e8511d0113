#!/usr/bin/env bash
# Installs the build and test dependencies on a Debian 12 machine (as root, or
# through sudo). The CUDA toolkit (nvcc, NVRTC) is expected at /usr/local/cuda.
set -euo pipefail
packages=(cmake ninja-build g++ libfmt-dev libyaml-cpp-dev libbenchmark-dev catch2 libcli11-dev nlohmann-json3-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
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
# The Python package's CPU tests and the runtime report's check (tests/CMakeLists.txt).
if ! python3 -c "import yaml" 2>/dev/null; then
  echo "installing: PyYAML"
  python3 -m pip install -q pyyaml
fi
if ! python3 -c "import pytest" 2>/dev/null; then
  echo "installing: pytest"
  python3 -m pip install -q pytest
fi
