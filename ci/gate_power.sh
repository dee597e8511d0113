#!/usr/bin/env bash
# How far the gate can be trusted on this GPU (issue: verdicts a CI can trust):
# gate-mode runs of the family's chosen configurations, some with a slowdown
# planted in every variant kernel (exactune sweep --plant-slowdown), gated
# against the sweep in REPORTS, counted by `exactune gate-power` into
# REPORTS/gate_power.json; then the reports are made again so summary.md
# shows it. The levels run interleaved (none, +3%, +5%, +10%, none, ...) so
# that a GPU warming over the runs biases no level. Each run is gated as
# ci/gate_mode.sh gates: what the gate finds ambiguous is measured again, up to
# EXACTUNE_GATE_REMEASURE_ROUNDS (2) more runs of the same narrowed sweep,
# pooled with the first (their sweeps are RUN-again-K beside RUN).
#
# Long work, cut short safely: gate_power.json is rewritten after every round
# from the runs done so far, so a run stopped at any point leaves a result;
# runs already in WORK (their sweep.yaml written) are not run again, so a
# second call with the same WORK resumes; and with SECONDS_BUDGET no round
# starts that the last round's duration says would not end within it.
#   usage: ci/gate_power.sh EXACTUNE FAMILY REPORTS RUNS WORK [SECONDS_BUDGET]
#   RUNS: runs per level (the issue asks 20 for the first family, 10 for the others)
set -euo pipefail
bin=${1:?usage: ci/gate_power.sh EXACTUNE FAMILY REPORTS RUNS WORK [SECONDS_BUDGET]}
family=${2:?family}
reports=${3:?reports folder of the family}
runs=${4:?runs per level}
work=${5:?work folder}
budget=${6:-0}
levels=(0 0.03 0.05 0.10)
mkdir -p "$work"
start=$(date +%s)
specs=()
summarise() {
  [ ${#specs[@]} -gt 0 ] || return 0
  "$bin" gate-power --baseline "$reports/sweep.yaml" --heuristics "$reports/heuristics.yaml" \
    --out "$reports/gate_power.json" "${specs[@]}" >"$work/gate-power.txt"
}
# One gate-mode run at LEVEL into OUT, re-measured while the gate finds it
# ambiguous; prints its spec for exactune gate-power (LEVEL:OUT/sweep.yaml
# +OUT-again-1/sweep.yaml ...). A run already made is resumed where it stopped.
gate_mode_run() {
  local level=$1 out=$2 spec round=0 again remeasured=()
  local plant=()
  [ "$level" != 0 ] && plant=(--plant-slowdown "$level")
  if [ ! -f "$out/sweep.yaml" ]; then
    "$bin" sweep --family "$family" --only "$reports/heuristics.yaml" --out "$out" "${plant[@]}" >"$out.log" 2>&1 ||
      return 1
  fi
  spec="$level:$out/sweep.yaml"
  local gated
  while :; do
    rm -f "$out/rerun.txt"  # the list this gate call writes, never an earlier one's
    gated=0
    "$bin" gate --baseline "$reports/sweep.yaml" --candidate "$out/sweep.yaml" "${remeasured[@]}" \
      --heuristics "$reports/heuristics.yaml" --rerun-list "$out/rerun.txt" >"$out/gate-$round.txt" 2>&1 || gated=$?
    if [ "$gated" -ge 2 ]; then  # 1 is a verdict (slower); 2 and up, a gate that could not judge
      echo "gate power: exactune gate could not judge $out (exit $gated):" >&2
      tail -3 "$out/gate-$round.txt" >&2
      return 1
    fi
    if [ ! -s "$out/rerun.txt" ] || [ "$round" -ge "$remeasure_rounds" ]; then break; fi
    round=$((round + 1))
    again="$out-again-$round"
    if [ ! -f "$again/sweep.yaml" ]; then
      "$bin" sweep --family "$family" --only "$reports/heuristics.yaml" --out "$again" "${plant[@]}" \
        >"$again.log" 2>&1 || return 1
    fi
    remeasured+=(--remeasured "$again/sweep.yaml")
    spec+="+$again/sweep.yaml"
  done
  echo "$spec"
}
remeasure_rounds=${EXACTUNE_GATE_REMEASURE_ROUNDS:-2}
round_s=0
for ((i = 1; i <= runs; i++)); do
  elapsed=$(($(date +%s) - start))
  if [ "$budget" -gt 0 ] && [ $((elapsed + round_s + round_s / 5)) -gt "$budget" ]; then
    echo "gate power: $family stopped before round $i of $runs: a round takes about $round_s s, $((budget - elapsed)) s of the budget left; run again with the same work folder to resume"
    break
  fi
  round_start=$(date +%s)
  for level in "${levels[@]}"; do
    if spec=$(gate_mode_run "$level" "$work/$level-$i"); then
      specs+=("$spec")
    else
      echo "gate power: run $level-$i of $family failed (see $work/$level-$i.log)" >&2
      tail -5 "$work/$level-$i.log" >&2
    fi
  done
  round_s=$(($(date +%s) - round_start))
  summarise
  echo "gate power: $family round $i of $runs done ($round_s s)"
done
summarise
cat "$work/gate-power.txt" 2>/dev/null
"$bin" report --from "$reports/sweep.yaml" --out "$reports" >/dev/null
