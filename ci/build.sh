#!/usr/bin/env bash
# Configures and builds exactune into ${EXACTUNE_BUILD_DIR:-build}: every target,
# or only the targets named as arguments (or in EXACTUNE_BUILD_TARGET, several
# separated by spaces), e.g. `bash ci/build.sh exactune` for the CLI alone, as
# ci/sweep.sh does: the test suites are then not compiled. CUDA_HOME names the
# toolkit (default /usr/local/cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${EXACTUNE_BUILD_DIR:-build}
targets=("$@")
if [ ${#targets[@]} -eq 0 ] && [ -n "${EXACTUNE_BUILD_TARGET:-}" ]; then
  read -r -a targets <<<"$EXACTUNE_BUILD_TARGET"
fi
cuda=${CUDA_HOME:-/usr/local/cuda}
export PATH=$cuda/bin:$PATH
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# ccache, where the machine has it, keeps a rebuild after a checkout or a move
# of files short; CI machines without it build as before.
# Paths under the clone are hashed relative to it, and the build folder's path
# not at all, so that a clone elsewhere (each CI run's) still hits.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
fi
# EXACTUNE_CMAKE_ARGS: more configure options, split on spaces (the wheel's backend,
# python/tools/exactune_wheel_backend.py, configures its fresh folder without tests).
read -r -a cmake_args <<<"${EXACTUNE_CMAKE_ARGS:-}"
cmake -S . -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCUDAToolkit_ROOT="$cuda" "${cmake_args[@]}" >/dev/null
target_args=()
[ ${#targets[@]} -gt 0 ] && target_args=(--target "${targets[@]}")
cmake --build "$build" -j"$(nproc)" "${target_args[@]}"
