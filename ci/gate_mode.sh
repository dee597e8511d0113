#!/usr/bin/env bash
# The CI regression gate on a GPU runner, in seconds rather than a sweep:
# verifies and times only what the committed table chose and its runners-up
# (`exactune sweep --only`), then gates that narrowed candidate against the
# committed sweep, re-measuring what it finds ambiguous.
# Usage: ci/gate_mode.sh reports/<gpu-slug>/<family> [sweep options...]
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
# What the gate finds ambiguous is measured again: the same narrowed sweep, run
# again (it times the copy beside the chosen configurations), its samples pooled
# with the first run's, each against its run's copy; at most
# EXACTUNE_GATE_REMEASURE_ROUNDS (2) more runs. Still ambiguous after them:
# "ambiguous: rerun", a warning (a failure with --strict in EXACTUNE_GATE_ARGS).
rounds=${EXACTUNE_GATE_REMEASURE_ROUNDS:-2}
remeasured=()
round=0
while :; do
  gated=0
  "$exactune" gate --baseline "$reports/sweep.yaml" --candidate "$out/sweep.yaml" "${remeasured[@]}" \
    --heuristics "$reports/heuristics.yaml" --junit "$out/gate.xml" --rerun-list "$out/rerun.txt" \
    ${EXACTUNE_GATE_ARGS:-} || gated=$?
  if [ "$swept" -ne 0 ] || [ ! -s "$out/rerun.txt" ] || [ "$round" -ge "$rounds" ]; then break; fi
  round=$((round + 1))
  echo "gate mode: re-measuring $(paste -sd, "$out/rerun.txt") (round $round of $rounds)"
  again="$out/remeasure-$round"
  "$exactune" sweep --family "$family" --only "$reports/heuristics.yaml" --out "$again" "$@" || { swept=$?; break; }
  remeasured+=(--remeasured "$again/sweep.yaml")
done
echo "gate mode: wall $(( ($(date +%s%N) - start) / 1000000 )) ms, $round re-measure rounds (sweep exit $swept, gate exit $gated)"
# The gate's verdict, unless the sweep itself failed (a variant not exact: the gate says which).
exit $(( gated != 0 ? gated : swept ))
