#!/usr/bin/env bash
# The harness's own speed on this GPU (issue 14), measured back to back in one
# call: the default sweep with the default strategy and with exhaustive search,
# each from a cold compile cache and then warm; how often the two strategies
# choose alike; the gate mode; and one worker per GPU against one GPU.
# Writes <out>/harness_speed.json (ci/harness_speed.py: the figures summary.md
# shows when the file lies beside a sweep.yaml) and every log under <out>.
#   usage: ci/speed.sh EXACTUNE_BINARY FAMILY BASELINE_REPORTS_DIR OUT_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$1 family=$2 baseline=$3 out=$4
mkdir -p "$out"
status=0
# Each run: its wall time (seconds) into <out>/<name>.wall, its logs beside.
timed() {
  local name=$1 t0 t1 rc; shift
  t0=$(date +%s.%N)
  "$@" >"$out/$name.log" 2>"$out/$name.err"
  rc=$?
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.1f}')" >"$out/$name.wall"
  echo "$rc" >"$out/$name.rc"
  echo "$name: exit $rc, $(cat "$out/$name.wall") s: $(tail -1 "$out/$name.log")"
  [ "$rc" -eq 0 ] || status=1
}
cold_cache() { local d; d=$(mktemp -d /tmp/exactune-speed-cache.XXXX); echo "$d"; }

fast=$("$bin" sweep --help | grep -o "default strategy: [a-z_]*" | head -1 | cut -d' ' -f3)
fast=${fast:-successive_halving}
# Cold then warm, the two strategies interleaved, so that neither gets the
# machine's warmer or quieter half.
fast_cache=$(cold_cache) exhaustive_cache=$(cold_cache)
# EXACTUNE_SPEED_COLD=0 skips the cold pair (the caches are then filled by
# `exactune compile` first), for a machine whose time is short.
if [ "${EXACTUNE_SPEED_COLD:-1}" = 1 ]; then
  EXACTUNE_CACHE_DIR=$fast_cache timed sweep-fast-cold "$bin" sweep --family "$family" --strategy "$fast" --out "$out/fast-cold"
  EXACTUNE_CACHE_DIR=$exhaustive_cache timed sweep-exhaustive-cold "$bin" sweep --family "$family" --strategy exhaustive --out "$out/exhaustive-cold"
else
  EXACTUNE_CACHE_DIR=$fast_cache "$bin" compile --family "$family" >"$out/compile.log" 2>&1 || status=1
  cp -r "$fast_cache/." "$exhaustive_cache/"
fi
EXACTUNE_CACHE_DIR=$fast_cache timed sweep-fast-warm "$bin" sweep --family "$family" --strategy "$fast" --out "$out/fast-warm"
EXACTUNE_CACHE_DIR=$exhaustive_cache timed sweep-exhaustive-warm "$bin" sweep --family "$family" --strategy exhaustive --out "$out/exhaustive-warm"
for cache in cold warm; do
  [ -f "$out/fast-$cache/heuristics.yaml" ] || continue
  "$bin" agreement "$out/exhaustive-$cache" "$out/fast-$cache" >"$out/agreement-$cache.md" 2>&1 || status=1
  echo "agreement ($cache pair): $(tail -1 "$out/agreement-$cache.md")"
done

# The gate mode: the committed table's choices and runners-up, verified and
# timed, then compared with the committed baseline (warm cache).
EXACTUNE_CACHE_DIR=$fast_cache timed gate-sweep "$bin" sweep --family "$family" --only "$baseline/heuristics.yaml" --out "$out/gate"
EXACTUNE_CACHE_DIR=$fast_cache timed gate-compare "$bin" gate --baseline "$baseline/sweep.yaml" --candidate "$out/gate/sweep.yaml" --heuristics "$baseline/heuristics.yaml"

# Every GPU of the host: one worker per GPU against one, warm, default
# strategy; only where there are two or more (harness_speed.json says so).
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
if [ "$gpus" -ge 2 ]; then
  EXACTUNE_CACHE_DIR=$fast_cache timed devices-all "$bin" sweep --family "$family" --devices all --out "$out/devices-all"
  EXACTUNE_CACHE_DIR=$fast_cache timed devices-one "$bin" sweep --family "$family" --devices 0 --out "$out/devices-one"
fi
python3 ci/harness_speed.py "$out" --family "$family" --gpus "$gpus" >"$out/harness_speed.json" || status=1
cat "$out/harness_speed.json"
exit $status
