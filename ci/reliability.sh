#!/usr/bin/env bash
# Reliability on a GPU, for one family (ci/gpu.sh stage `reliability`):
#   1. a sweep with a planted trapping, out-of-bounds and spinning kernel among
#      the real ones: the three get failed and hung records, every real variant
#      its normal one, exit 1 in bounded time (ci/check_planted_sweep.py);
#   2. the same sweep without them, uninterrupted;
#   3. the same sweep killed with SIGKILL halfway through (by the clock of the
#      uninterrupted one), then --resume: its records must equal the
#      uninterrupted run's (ci/compare_sweep_records.py).
# Prints one verdict line per check; exit 1 when one fails.
#   usage: ci/reliability.sh BIN FAMILY SHAPES OUT [sweep arguments...]
set -uo pipefail
bin=$1 family=$2 shapes=$3 out=$4
shift 4
mkdir -p "$out"
sweep=("$bin" sweep --family "$family" --shapes "$shapes" "$@")
status=0

t0=$(date +%s)
"${sweep[@]}" --out "$out/planted" --plant-crash trap,out-of-bounds,spin >"$out/planted.log" 2>"$out/planted.err"
rc=$?
wall=$(($(date +%s) - t0))
verdict=$(python3 "$(dirname "$0")/check_planted_sweep.py" "$out/planted.log" $rc) || status=1
echo "planted crashes ($family): $verdict; exit $rc after $wall s, $(grep -c 'a fresh worker continues' "$out/planted.err") fresh workers"

t0=$(date +%s)
"${sweep[@]}" --out "$out/whole" >"$out/whole.log" 2>&1
rc=$?
whole=$(($(date +%s) - t0))
half=$(( whole > 2 ? whole / 2 : 1 ))
echo "uninterrupted sweep ($family): exit $rc in $whole s"
[ $rc -eq 0 ] || status=1

"${sweep[@]}" --out "$out/killed" >"$out/killed.log" 2>&1 &
pid=$!
sleep "$half"
kill -9 $pid
wait $pid 2>/dev/null
sleep 1
steps=$(($(wc -l <"$out/killed/sweep.journal") - 1))
workers=$(pgrep -f -- "--out $out/killed" | wc -l)
echo "killed with SIGKILL after $half s: $steps steps journaled, sweep.yaml $([ -e "$out/killed/sweep.yaml" ] && echo written || echo absent), $workers processes left"
[ "$workers" -eq 0 ] && [ ! -e "$out/killed/sweep.yaml" ] && [ "$steps" -gt 0 ] || status=1
t0=$(date +%s)
"${sweep[@]}" --out "$out/killed" --resume >"$out/resumed.log" 2>&1
rc=$?
echo "resumed: exit $rc in $(($(date +%s) - t0)) s; $(grep -m1 'steps already finished' "$out/resumed.log")"
[ $rc -eq 0 ] || status=1
verdict=$(python3 "$(dirname "$0")/compare_sweep_records.py" "$out/whole/sweep.yaml" "$out/killed/sweep.yaml") || status=1
echo "resumed vs uninterrupted ($family): $verdict"
exit $status
