# The qk head LayerNorm family's part of ci/gpu.sh's faults, sanitize and golden
# stages (sourced there; run_sanitizer comes from it). Its faults are planted on
# the CPU (tests/cpu); its torch oracle is the first family's golden data, whose
# arithmetic (arith.cuh, the aten reference) it shares.
faults_stage() { :; }
golden_stage() { :; }

sanitize_stage() {
  local family=$1
  for tool in racecheck synccheck; do
    run_sanitizer "$family" $tool clean --family "$family" \
      --shapes shapes/tests/qk_head_layer_norm/sanitize.yaml --variants 'w2_r[14]_v8_rcp_*'
  done
}
