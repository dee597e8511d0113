# The gated residual family's part of ci/gpu.sh's faults, sanitize and golden
# stages (sourced there; check_fault, run_sanitizer, note, $bin and $OUT come
# from it). Its LayerNorm and modulate faults are layer_norm_modulate's (the
# same template); its own are the residual's arithmetic and the row source.
shapes=shapes/tests/gated_residual_layer_norm_modulate

faults_stage() {
  local family=$1
  # 9: x + gate * h as one FMA; 10: the product not rounded before the add. Every variant shows them.
  for fault in 9 10; do check_fault "$family" $fault 'w*_r1_predicated_v8_*_late_*_full' --shapes $shapes/faults.yaml; done
  # 11: pass 2 reads x instead of r: only reload variants can show it.
  check_fault "$family" 11 'w*_r1_*_v8_reload_*_late_*_full' --shapes $shapes/faults.yaml
}

sanitize_stage() {
  local family=$1
  # Pass 1 writes r and, in reload variants, pass 2 reads it back across the
  # reduction's barrier; a persistent CTA writes the next group's r as it prefetches.
  for tool in racecheck synccheck; do
    run_sanitizer "$family" $tool clean --family "$family" --shapes $shapes/faults.yaml \
      --variants 'w[24]_r[12]_predicated_v8_*_rcp_late_bf16x2_*'
  done
}

golden_stage() {
  local t0
  t0=$(date +%s)
  timeout 300 python3 families/gated_residual_layer_norm_modulate/tests/torch/make_torch_golden.py \
    --out "$OUT/torch_golden" >"$OUT/golden-gated.log" 2>&1 || return 1
  note "golden gated: $(tail -1 "$OUT/golden-gated.log") ($(( $(date +%s) - t0 )) s); commit under families/gated_residual_layer_norm_modulate/tests/data/torch_golden/"
}
