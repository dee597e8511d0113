# The LayerNorm + modulate family's part of ci/gpu.sh's faults, sanitize and
# golden stages (sourced there; check_fault, run_sanitizer, note, $bin and $OUT
# come from it). Every fault's glob holds only variants that can show it.
shapes=shapes/tests/layer_norm_modulate

faults_stage() {
  local family=$1
  # Arithmetic faults (arith.cuh, the reference chain) over the default shapes.
  for fault in 1 2 3; do check_fault "$family" $fault 'w*_r1_*_v8_reload_*'; done
  # The fused template's own logic: 5 chunks in the wrong lane group (shows with
  # fewer than aten's 128 lanes a chunk: one warp), 6 folded counts off by one,
  # 7 warp totals in the wrong slots.
  check_fault "$family" 5 'w1_*_late_bf16x2_full' --shapes $shapes/faults.yaml
  check_fault "$family" 6 '*_fold_late_bf16x2_full' --shapes $shapes/faults.yaml
  check_fault "$family" 7 'w*_r1_predicated_v8_registers_*_late_bf16x2_full' --shapes $shapes/faults.yaml
}

sanitize_stage() {
  local family=$1 persistent=w2_r1_predicated_v8_registers_rcp_late_bf16x2_persistent
  for tool in racecheck synccheck; do
    run_sanitizer "$family" $tool clean --family "$family" --shapes $shapes/faults.yaml \
      --variants 'w[24]_r1_predicated_v8_registers_rcp_late_bf16x2_*'
  done
  # The persistent grid looping over row groups, clean; then with one set of warp
  # totals (fault 4), a race racecheck must report.
  run_sanitizer persistent racecheck clean --family "$family" --shapes $shapes/faults_persistent.yaml \
    --variants $persistent
  run_sanitizer fault4 racecheck hazard --family "$family" --shapes $shapes/faults_persistent.yaml \
    --plant-fault 4 --variants $persistent
}

golden_stage() {
  local t0
  t0=$(date +%s)
  timeout 300 python3 families/layer_norm_modulate/tests/torch/make_torch_golden.py --out "$OUT/torch_golden" \
    >"$OUT/golden.log" 2>&1 || return 1
  note "golden: $(tail -1 "$OUT/golden.log") ($(( $(date +%s) - t0 )) s); commit under families/layer_norm_modulate/tests/data/torch_golden/"
}
