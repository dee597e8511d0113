#!/usr/bin/env bash
# Set-up and main job in one: installs what this Debian machine lacks, builds
# the CLI alone (not the test suites: ci/test.sh builds those), and runs
# `exactune sweep` on the embedded default shapes (arguments are passed on,
# e.g. --shapes my.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
bash ci/build.sh exactune
exec "${EXACTUNE_BUILD_DIR:-build}/exactune" sweep "$@"
