#!/usr/bin/env bash
# The GPU suite, in one command on the GPU machine: build from source, run the
# whole ctest suite (GPU tests included), the PyTorch cross-checks of every
# family, and `exactune verify` of every family on its default shapes; then
# whatever stages are named. EXACTUNE_FAMILIES (space-separated) narrows the
# families that verify and sweep run; by default, all that the binary knows.
# Logs and reports go under $OUT (default /tmp/exactune-gpu).
#   usage: ci/gpu.sh [tests] [torch] [verify] [verify-defaults] [faults] [sanitize] [golden] [reliability] [aten-sass] [sweep] [swept-tables] [gate-power] [speed] [sass] [runtime]
#                    [wheel] [runtime-bench] [first-call]   (no argument: tests torch verify faults sanitize runtime)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/exactune-gpu}
mkdir -p "$OUT"
# The device tool brings back few files: logs and reports are also packed into
# $OUT/00-gpu-results.tgz after every stage (named to come first: the tool returns the
# first few files), so a run cut short still returns them.
pack() { tar czf /tmp/00-gpu-results.tgz -C "$OUT" --exclude=00-gpu-results.tgz . && mv /tmp/00-gpu-results.tgz "$OUT/"; }
export EXACTUNE_CACHE_DIR=${EXACTUNE_CACHE_DIR:-/tmp/exactune-cache}
export EXACTUNE_BUILD_DIR=${EXACTUNE_BUILD_DIR:-build-gpu}
# Absolute: a build outside the tree (e.g. /tmp/build-gpu) outlives a re-sent tree on a warm machine.
case $EXACTUNE_BUILD_DIR in /*) ;; *) EXACTUNE_BUILD_DIR=$PWD/$EXACTUNE_BUILD_DIR ;; esac
export PYTHONUNBUFFERED=1
# Here a skipped GPU test is a failure (tests/gpu_main.cpp, conftest.py).
export EXACTUNE_REQUIRE_GPU=1
# The Python package from this tree, on the runtime library just built; its
# torch op library is compiled on first import into TORCH_EXTENSIONS_DIR.
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export EXACTUNE_RUNTIME_LIB=$EXACTUNE_BUILD_DIR/libexactune_runtime.so
export TORCH_EXTENSIONS_DIR=${TORCH_EXTENSIONS_DIR:-/tmp/exactune-torch-extensions}
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(tests torch verify faults sanitize runtime)
status=0
summary=()
note() { summary+=("$1"); echo "== $1"; }

nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1
start=$(date +%s)
if ! bash ci/build.sh >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"
  echo "build failed"
  exit 1
fi
note "build: ok in $(( $(date +%s) - start )) s"
bin=$EXACTUNE_BUILD_DIR/exactune
families=${EXACTUNE_FAMILIES:-$("$bin" families | cut -f1)}

# A planted fault counts as caught only when every variant of the run (a glob of
# variants that can all show it) was incorrect on some shape, verify exited 1 and
# nothing failed to compile or run (ci/check_fault_run.py).
#   check_fault FAMILY FAULT GLOB [verify arguments...]
check_fault() {
  local family=$1 fault=$2 glob=$3 log="$OUT/fault-$1-$2.log" verdict; shift 3
  "$bin" verify --family "$family" --plant-fault "$fault" --variants "$glob" "$@" >"$log" 2>&1
  verdict=$(python3 ci/check_fault_run.py "$log" $?) || status=1
  note "planted fault $fault ($family): $verdict"
  grep -m1 "incorrect \[" "$log"
}
# compute-sanitizer over `exactune verify`: expect "clean" (no hazard, exit 0) or
# "hazard" (a planted race must be reported).
#   run_sanitizer NAME TOOL EXPECT [verify arguments...]
run_sanitizer() {
  local name=$1 tool=$2 expect=$3 log="$OUT/sanitize-$1-$2.log" rc errors; shift 3
  timeout 150 "$sanitizer" --tool "$tool" --error-exitcode 99 "$bin" verify --no-table "$@" >"$log" 2>&1
  rc=$?
  errors=$(grep -Eo "(RACECHECK|ERROR) SUMMARY: [0-9]+ (hazards displayed \([0-9]+ errors|errors)" "$log" |
    grep -Eo "[0-9]+ errors" | grep -Eo "[0-9]+" | tail -1)
  if [ "$expect" = clean ] && [ "$rc" -eq 0 ] && [ "${errors:-x}" = 0 ]; then
    note "sanitize $name $tool: clean ($(tail -1 "$log" | cut -c1-120))"
  elif [ "$expect" = hazard ] && [ "${errors:-0}" -gt 0 ] 2>/dev/null; then
    note "sanitize $name $tool: planted race reported ($errors errors)"
  else
    status=1
    note "sanitize $name $tool: expected $expect, got exit $rc, errors ${errors:-unknown} (see $(basename "$log"))"
    grep -m3 -E "Race|Barrier|Error|error" "$log"
  fi
}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

for stage in "${stages[@]}"; do
  t0=$(date +%s)
  case $stage in
    tests)
      # EXACTUNE_CTEST_REGEX narrows the run (e.g. gpu_suite) when the CPU suite ran elsewhere.
      ctest --test-dir "$EXACTUNE_BUILD_DIR" --output-on-failure -j4 ${EXACTUNE_CTEST_REGEX:+-R "$EXACTUNE_CTEST_REGEX"} \
        >"$OUT/ctest.log" 2>&1 || status=1
      note "ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1) ($(( $(date +%s) - t0 )) s)"
      grep -A3 "SKIPPED\|Failed\|FAILED" "$OUT/ctest.log" | head -40
      cp "$EXACTUNE_BUILD_DIR/Testing/Temporary/LastTest.log" "$OUT/ctest-full.log" 2>/dev/null
      grep -h "^cpu_vs_gpu:\|^planted fault\|^GPU 0:\|^arith_checks:" "$OUT/ctest-full.log" | sort -u | while read -r line; do note "$line"; done
      ;;
    torch)
      EXACTUNE_CAPI=$EXACTUNE_BUILD_DIR/libexactune_capi.so \
        timeout "${EXACTUNE_TORCH_TIMEOUT:-400}" python3 -m pytest families/*/tests/torch -q -p no:cacheprovider -rA \
        ${EXACTUNE_TORCH_SELECT:+-k "$EXACTUNE_TORCH_SELECT"} >"$OUT/torch.log" 2>&1 || status=1
      note "torch: $(tail -1 "$OUT/torch.log") ($(( $(date +%s) - t0 )) s)"
      # EXACTUNE_TORCH_SELECT (a pytest -k expression) runs part of the cross-check.
      if grep -q "Segmentation fault" "$OUT/torch.log"; then  # the native frames, for the next look
        EXACTUNE_CAPI=$EXACTUNE_BUILD_DIR/libexactune_capi.so timeout 120 cuda-gdb -q -batch \
          -ex "set pagination off" -ex run -ex "bt 40" --args python3 -m pytest families/*/tests/torch -q -x \
          -p no:cacheprovider -k "test_reference_matches_torch and D64" >"$OUT/torch-gdb.log" 2>&1
        grep -E "^#[0-9]+ " "$OUT/torch-gdb.log" | head -25
      fi
      grep -E "^FAILED|Error" "$OUT/torch.log" | head -20
      ;;
    verify)
      for family in $families; do
        "$bin" verify --family "$family" >"$OUT/verify-$family.log" 2>"$OUT/verify-$family.err" || status=1
        note "verify $family: $(tail -1 "$OUT/verify-$family.log") ($(( $(date +%s) - t0 )) s)"
      done
      ;;
    verify-defaults)
      # Every configuration the committed tables serve outside a tuned pair,
      # verified on this GPU at every size served, on the first
      # EXACTUNE_DEFAULTS_ROWS (66) rows of the family's first default shape:
      # this GPU's own record, for reports/<gpu-slug>/<family>/verified_defaults.yaml.
      # The whole shape (2048 rows) made the first family's inputs on the
      # host for some 20 minutes (on an H100: 1408 of its 4353 sizes in 374 s);
      # the default shapes' whole grids are what the verify stage proves.
      for family in $families; do
        mkdir -p "$OUT/reports/$family"
        "$bin" verify-defaults --family "$family" --reports reports --gpu-rows "${EXACTUNE_DEFAULTS_ROWS:-66}" \
          --out "$OUT/reports/$family/verified_defaults.yaml" >"$OUT/verify-defaults-$family.log" \
          2>"$OUT/verify-defaults-$family.err" || status=1
        note "verify-defaults $family: $(tail -1 "$OUT/verify-defaults-$family.log") ($(( $(date +%s) - t0 )) s)"
        pack
      done
      ;;
    faults|sanitize|golden)
      # Each family says what these stages run, in families/<name>/tests/gpu_stages.sh:
      # functions faults_stage (planted faults, through check_fault above),
      # sanitize_stage (compute-sanitizer on each kernel template, through
      # run_sanitizer) and golden_stage (torch's bits for the CPU suite's oracle,
      # under $OUT/torch_golden), each given the family's name.
      for family in $families; do
        hooks=families/$family/tests/gpu_stages.sh
        if [ -f "$hooks" ]; then
          # shellcheck source=/dev/null
          source "$hooks"
          "${stage}_stage" "$family" || status=1
        fi
      done
      ;;
    reliability)
      # Planted crashes among real variants, and a sweep killed halfway then resumed
      # (ci/reliability.sh), for each family with a reliability shape set.
      for family in $families; do
        shapes=shapes/tests/$family/reliability.yaml
        [ -f "$shapes" ] || continue
        timeout 1500 bash ci/reliability.sh "$bin" "$family" "$shapes" "$OUT/reliability-$family" \
          ${EXACTUNE_RELIABILITY_ARGS:-} >"$OUT/reliability-$family.log" 2>&1 || status=1
        while read -r line; do note "$line"; done <"$OUT/reliability-$family.log"
      done
      ;;
    aten-sass)
      # aten's own vectorized LayerNorm, disassembled from torch's binary.
      timeout 400 bash ci/aten_sass.sh -o "$OUT/aten-sass" >"$OUT/aten-sass.log" 2>&1 || status=1
      note "aten sass: $(grep -c '^== ' "$OUT/aten-sass.log") functions ($(( $(date +%s) - t0 )) s)"
      head -3 "$OUT/aten-sass.log"
      ;;
    sweep)
      for family in $families; do
        # EXACTUNE_SWEEP_ARGS: more sweep options (e.g. --repetitions 5 --policy cold).
        "$bin" sweep --family "$family" --out "$OUT/reports/$family" ${EXACTUNE_SWEEP_ARGS:-} >"$OUT/sweep-$family.log" \
          2>"$OUT/sweep-$family.err" || status=1
        note "sweep $family: $(tail -1 "$OUT/sweep-$family.log") ($(( $(date +%s) - t0 )) s)"
        tail -12 "$OUT/sweep-$family.log"
        pack  # each family's reports come back even if a later one is cut short
      done
      ;;
    swept-tables)
      # The tables with this call's sweeps in them (the sweep stage's $OUT/reports, as this GPU's reports),
      # served by the stages that follow through EXACTUNE_TABLES_DIR: a family swept here for the first time
      # is served to the runtime tests of the same call. Written to $OUT/tables.
      slug=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
      merged=/tmp/exactune-swept-reports
      rm -rf "$merged" && cp -r reports "$merged"
      for family in $families; do
        if [ -f "$OUT/reports/$family/heuristics.yaml" ]; then
          mkdir -p "$merged/$slug/$family" && cp "$OUT/reports/$family/"* "$merged/$slug/$family/"
        fi
      done
      if "$bin" tables --reports "$merged" --out "$OUT/tables" --records reports/tables >"$OUT/swept-tables.log" 2>&1; then
        export EXACTUNE_TABLES_DIR=$OUT/tables
        note "swept tables: served from $OUT/tables from now on ($(tail -1 "$OUT/swept-tables.log"))"
      else
        status=1
        note "swept tables: exactune tables failed ($(tail -1 "$OUT/swept-tables.log"))"
      fi
      ;;
    speed)
      # The harness's own speed (issue 14): both strategies cold and warm, their
      # agreement, the gate mode, --devices all (ci/speed.sh), for the first family.
      family=${families%% *}
      # The committed reports of this GPU model are the gate mode's baseline.
      slug=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
      timeout 1500 bash ci/speed.sh "$bin" "$family" "reports/$slug/$family" \
        "$OUT/speed" >"$OUT/speed.log" 2>&1 || status=1
      while read -r line; do note "$line"; done < <(grep -E "^(sweep|gate|devices|agreement)" "$OUT/speed.log")
      ;;
    gate-power)
      # The gate's false alarms and power on this GPU (ci/gate_power.sh), against
      # EXACTUNE_GATE_POWER_REPORTS/<family> (default the committed reports of
      # this GPU model, copied under $OUT/reports so the product comes back);
      # EXACTUNE_GATE_POWER_RUNS runs per level (default 20 for the first family,
      # 10 for the others); EXACTUNE_GATE_POWER_SECONDS, a time budget per
      # family (no round starts that would overrun it). The runs are kept in
      # EXACTUNE_GATE_POWER_WORK (default /tmp/exactune-gate-power), outside
      # $OUT, so that a second call on the same machine resumes them.
      slug=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z ' 'a-z-')
      first=${families%% *}
      for family in $families; do
        reports="$OUT/reports/$family"
        if [ ! -f "$reports/sweep.yaml" ]; then
          mkdir -p "$reports"
          cp "${EXACTUNE_GATE_POWER_REPORTS:-reports/$slug}/$family/"* "$reports/"
        fi
        runs=${EXACTUNE_GATE_POWER_RUNS:-$([ "$family" = "$first" ] && echo 20 || echo 10)}
        bash ci/gate_power.sh "$bin" "$family" "$reports" "$runs" \
          "${EXACTUNE_GATE_POWER_WORK:-/tmp/exactune-gate-power}/$family" "${EXACTUNE_GATE_POWER_SECONDS:-0}" \
          >"$OUT/gate-power-$family.log" 2>&1 || status=1
        pack
        note "gate power $family: $(grep -E '^planted' "$OUT/gate-power-$family.log" | paste -sd';') ($(( $(date +%s) - t0 )) s)"
      done
      ;;
    sass)
      # The best variants' machine code, for reading (EXACTUNE_SASS_GLOBS: space-separated globs).
      PATH=$PATH:/usr/local/cuda/bin bash ci/sass.sh -o "$OUT/sass" ${EXACTUNE_SASS_GLOBS:-'w2_r1_predicated_v16_*_late_*'} \
        >"$OUT/sass.log" 2>&1 || status=1
      note "sass: $(grep -c '^==' "$OUT/sass.log") kernels disassembled ($(( $(date +%s) - t0 )) s)"
      ;;
    wheel)
      # The stages after this one import exactune from its installed wheel, as a user gets it, not from this
      # tree: the wheel is built (python/tools/build_wheel.py: the runtime, the kernel export of the tables this
      # stage serves, the torch-free binding, the ops' sources), pip installs it into EXACTUNE_WHEEL_TARGET
      # (default /tmp/exactune-wheel), and that folder takes the tree's place on PYTHONPATH, with no
      # EXACTUNE_RUNTIME_LIB: exactune finds its library and export inside the package.
      target=${EXACTUNE_WHEEL_TARGET:-/tmp/exactune-wheel}
      rm -rf "$target" /tmp/exactune-wheel-export /tmp/exactune-wheel-dist
      if "$bin" export --out /tmp/exactune-wheel-export >"$OUT/wheel.log" 2>&1 &&
        python3 python/tools/build_wheel.py --runtime "$EXACTUNE_RUNTIME_LIB" --export /tmp/exactune-wheel-export \
          --out /tmp/exactune-wheel-dist >>"$OUT/wheel.log" 2>&1 &&
        python3 -m pip install --quiet --no-index --no-deps --no-compile --target "$target" \
          /tmp/exactune-wheel-dist/*.whl >>"$OUT/wheel.log" 2>&1; then
        export PYTHONPATH=$target${PYTHONPATH#"$PWD/python"}
        unset EXACTUNE_RUNTIME_LIB
        from=$(cd / && python3 -c "import exactune._native as n; print(n.runtime_library())" 2>>"$OUT/wheel.log")
        note "wheel: $(basename /tmp/exactune-wheel-dist/*.whl) installed into $target; the stages after this one \
import exactune from it (runtime library: ${from:-not found})"
        case $from in "$target"/*) ;; *) status=1 ;; esac
      else
        status=1
        note "wheel: failed ($(tail -1 "$OUT/wheel.log"))"
      fi
      ;;
    runtime)
      # The torch ops against real torch: exactness, layouts, fallbacks, graphs, torch.compile, the gate; with
      # each binding of exactune.torch (EXACTUNE_TORCH_BINDING: the extension compiled against this torch, and
      # the torch-free DLPack binding). EXACTUNE_RUNTIME_BINDINGS narrows them.
      for binding in ${EXACTUNE_RUNTIME_BINDINGS:-extension dlpack}; do
        t1=$(date +%s)
        EXACTUNE_TORCH_BINDING=$binding timeout "${EXACTUNE_RUNTIME_TIMEOUT:-500}" python3 -m pytest python/tests/gpu \
          -q -p no:cacheprovider -rA >"$OUT/runtime-tests-$binding.log" 2>&1 || status=1
        note "runtime tests, $binding binding: $(tail -1 "$OUT/runtime-tests-$binding.log") ($(( $(date +%s) - t1 )) s)"
        grep -E "^FAILED|^ERROR|SKIPPED" "$OUT/runtime-tests-$binding.log" | head -20
        pack
      done
      ;;
    runtime-bench)
      # runtime.json for reports/<gpu>/runtime.md (python/tools/runtime_report.py writes the page).
      # EXACTUNE_BENCH_ARGS narrows it (e.g. --family F --shape S --dit-iters 0).
      timeout "${EXACTUNE_BENCH_TIMEOUT:-400}" python3 python/tools/runtime_bench.py --out "$OUT/runtime.json" \
        ${EXACTUNE_BENCH_ARGS:-} \
        >"$OUT/runtime-bench.log" 2>&1 || status=1
      note "runtime bench: $(tail -1 "$OUT/runtime-bench.log") ($(( $(date +%s) - t0 )) s)"
      grep -v "^exactune: " "$OUT/runtime-bench.log" | tail -16
      ;;
    first-call)
      # First-call latency of the torch ops with the kernel export and without it (NVRTC with a warm and a
      # cold cache), each in fresh processes: first_call.json (docs/runtime.md, python/tools/first_call_bench.py).
      if "$bin" export --out "$OUT/export" >"$OUT/export.log" 2>&1; then
        timeout "${EXACTUNE_BENCH_TIMEOUT:-400}" python3 python/tools/first_call_bench.py --export "$OUT/export" \
          --out "$OUT/first_call.json" >"$OUT/first-call.log" 2>&1 || status=1
        note "first call: $(tail -1 "$OUT/first-call.log") ($(( $(date +%s) - t0 )) s)"
        grep -v "^exactune: " "$OUT/first-call.log" | tail -8
      else
        status=1
        note "first call: exactune export failed ($(tail -1 "$OUT/export.log"))"
      fi
      ;;
    *) echo "unknown stage $stage"; status=2 ;;
  esac
  printf '%s\n' "${summary[@]}" >"$OUT/summary.txt"
  pack
done
echo
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
exit $status
