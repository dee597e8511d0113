#!/usr/bin/env bash
# Configures and builds exactune into ${EXACTUNE_BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${EXACTUNE_BUILD_DIR:-build}
export PATH=/usr/local/cuda/bin:$PATH
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# ccache, where the machine has it, keeps a rebuild after a checkout or a move
# of files short; CI machines without it build as before.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCUDAToolkit_ROOT=/usr/local/cuda >/dev/null
cmake --build "$build" -j"$(nproc)"
