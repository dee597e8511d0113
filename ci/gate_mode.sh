#!/usr/bin/env bash
# The CI regression gate on a GPU runner, in seconds rather than a sweep:
# verifies and times only what the committed table chose and its runners-up
# (`exactune sweep --only`), then gates that narrowed candidate against the
# committed sweep. Usage: ci/gate_mode.sh reports/<gpu-slug>/<family> [sweep options...]
# Writes <build>/gate/<gpu-slug>/<family>/sweep.yaml and gate.xml (JUnit); exits as the gate does.
set -euo pipefail
cd "$(dirname "$0")/.."
exactune="${EXACTUNE_BUILD_DIR:-build}/exactune"
reports="${1:?usage: ci/gate_mode.sh reports/<gpu-slug>/<family> [sweep options...]}"
shift
family="$(basename "$reports")"
out="${EXACTUNE_BUILD_DIR:-build}/gate/$(basename "$(dirname "$reports")")/$family"
start=$(date +%s%N)
swept=0
"$exactune" sweep --family "$family" --only "$reports/heuristics.yaml" --out "$out" "$@" || swept=$?
gated=0
"$exactune" gate --baseline "$reports/sweep.yaml" --candidate "$out/sweep.yaml" \
  --heuristics "$reports/heuristics.yaml" --junit "$out/gate.xml" || gated=$?
echo "gate mode: wall $(( ($(date +%s%N) - start) / 1000000 )) ms (sweep exit $swept, gate exit $gated)"
# The gate's verdict, unless the sweep itself failed (a variant not exact: the gate says which).
exit $(( gated != 0 ? gated : swept ))
