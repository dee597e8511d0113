# The token-major family's part of ci/gpu.sh's faults, sanitize and golden
# stages (sourced there; check_fault, run_sanitizer, note, $bin and $OUT come
# from it). Its arithmetic faults are the contiguous family's (the same row
# plan and chain); its own is the tile's read permutation. Its torch oracle is
# tests/torch (the torch stage), so it keeps no golden data.
shapes=shapes/tests/layer_norm_modulate_token_major

faults_stage() {
  local family=$1
  # 8: swizzled tiles of 16 and 32 tokens read rows with the wrong permutation.
  check_fault "$family" 8 'tile[13][62]_swizzled_n8_w4_r1_v8_late' --shapes $shapes/sanitize.yaml
}

golden_stage() { :; }

sanitize_stage() {
  local family=$1
  # The tile's barrier between its transposing stores and the rows' reads, and
  # the two sets of warp totals across a tile's groups of rows.
  for tool in racecheck synccheck; do
    run_sanitizer "$family" $tool clean --family "$family" --shapes $shapes/sanitize.yaml --deadline 120 \
      --variants 'tile*_n8_w4_r[14]_v8_late'
  done
  # The lanes kernel's rounds through shared memory: the cross-warp tree
  # levels (2 and 4 threads a lane), and the warp totals and statistics reused
  # by a CTA's next tile.
  for tool in racecheck synccheck; do
    run_sanitizer "$family-lanes" $tool clean --family "$family" --shapes $shapes/sanitize.yaml --deadline 120 \
      --variants 'lanes*_n8_w[48]_late'
  done
}
