#!/usr/bin/env bash
# How far the gate can be trusted on this GPU (issue: verdicts a CI can trust):
# gate-mode runs of the family's chosen configurations, some with a slowdown
# planted in every variant kernel (exactune sweep --plant-slowdown), gated
# against the sweep in REPORTS, counted by `exactune gate-power` into
# REPORTS/gate_power.json; then the reports are made again so summary.md
# shows it. The levels run interleaved (none, +3%, +5%, +10%, none, ...) so
# that a GPU warming over the runs biases no level.
#   usage: ci/gate_power.sh EXACTUNE FAMILY REPORTS RUNS WORK
#   RUNS: runs per level (the issue asks 20 for the first family, 10 for the others)
set -euo pipefail
bin=${1:?usage: ci/gate_power.sh EXACTUNE FAMILY REPORTS RUNS WORK}
family=${2:?family}
reports=${3:?reports folder of the family}
runs=${4:?runs per level}
work=${5:?work folder}
levels=(0 0.03 0.05 0.10)
mkdir -p "$work"
specs=()
for ((i = 1; i <= runs; i++)); do
  for level in "${levels[@]}"; do
    out="$work/$level-$i"
    plant=()
    [ "$level" != 0 ] && plant=(--plant-slowdown "$level")
    if "$bin" sweep --family "$family" --only "$reports/heuristics.yaml" --out "$out" "${plant[@]}" \
      >"$out.log" 2>&1; then
      specs+=("$level:$out/sweep.yaml")
    else
      echo "gate power: run $level-$i of $family failed (see $out.log)" >&2
      tail -5 "$out.log" >&2
    fi
  done
  echo "gate power: $family round $i of $runs done"
done
"$bin" gate-power --baseline "$reports/sweep.yaml" --heuristics "$reports/heuristics.yaml" \
  --out "$reports/gate_power.json" "${specs[@]}"
"$bin" report --from "$reports/sweep.yaml" --out "$reports" >/dev/null
