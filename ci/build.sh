#!/usr/bin/env bash
# Configures and builds exactune into ${EXACTUNE_BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${EXACTUNE_BUILD_DIR:-build}
export PATH=/usr/local/cuda/bin:$PATH
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT=/usr/local/cuda >/dev/null
cmake --build "$build" -j"$(nproc)"
