#!/usr/bin/env bash
# The bounded fuzz run of every reader of a user's file (tests/fuzz/README.md):
# about EXACTUNE_FUZZ_SECONDS (45) of wall time on all cores, seed
# EXACTUNE_FUZZ_SEED (1), in the build folder ci/build.sh made. A mishandled
# input is saved under <build>/fuzz-findings and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${EXACTUNE_BUILD_DIR:-build}
cmake --build "$build" --target exactune_fuzz_readers -j"$(nproc)" >/dev/null
"$build/tests/fuzz/exactune_fuzz_readers" --corpus tests/data/fuzz --seconds "${EXACTUNE_FUZZ_SECONDS:-45}" \
  --jobs "$(nproc)" --seed "${EXACTUNE_FUZZ_SEED:-1}" --findings "$build/fuzz-findings"
