#!/usr/bin/env bash
# Builds exactune and runs the test suite: the README's test command. Installs
# what this Debian machine lacks first, so it works on a fresh one. Without a
# GPU the GPU suites report themselves skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh
# --no-tests=error: a build or a discovery that leaves ctest nothing to run
# fails instead of passing having run nothing.
ctest --test-dir "${EXACTUNE_BUILD_DIR:-build}" --output-on-failure --no-tests=error -j"$(nproc)"
# A bounded fuzz run of every reader from the seed corpora (tests/fuzz/README.md).
bash ci/fuzz.sh
