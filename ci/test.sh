#!/usr/bin/env bash
# Builds exactune and runs the test suite: the README's test command. Without a
# GPU the GPU suite reports itself skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/build.sh
ctest --test-dir "${EXACTUNE_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"
