#!/usr/bin/env bash
# The token-major family's goal, measured in one GPU run: the family swept on
# its default shapes (every read: copy, tile, lanes), then the contiguous
# family swept on the same shapes with x contiguous, so that the best in-place
# variant's time and the contiguous kernel's come from the same run. Builds
# through ci/gpu.sh; reports under $OUT/reports/<family>/ (packed in
# $OUT/00-gpu-results.tgz), the contiguous baseline's under
# $OUT/reports/contiguous-baseline/. Extra ci/gpu.sh stages may follow.
# EXACTUNE_SWEEP_ARGS narrows or sets up the token-major sweep (ci/gpu.sh);
# EXACTUNE_BASELINE_ARGS the contiguous one (e.g. --variants 'w2_*' for a
# quick look; the goal is judged against the whole contiguous space).
#   usage: families/layer_norm_modulate_token_major/tools/goal.sh [more ci/gpu.sh stages...]
set -uo pipefail
cd "$(dirname "$0")/../../.."
export OUT=${OUT:-/tmp/exactune-gpu}
export EXACTUNE_BUILD_DIR=${EXACTUNE_BUILD_DIR:-/tmp/build-gpu}
export EXACTUNE_FAMILIES=layer_norm_modulate_token_major
status=0
bash ci/gpu.sh sweep "$@" || status=1
bin=$EXACTUNE_BUILD_DIR/exactune
"$bin" sweep --family layer_norm_modulate \
  --shapes shapes/tests/layer_norm_modulate/token_major_goal_baseline.yaml \
  --out "$OUT/reports/contiguous-baseline" ${EXACTUNE_BASELINE_ARGS:-} >"$OUT/sweep-contiguous-baseline.log" 2>&1 || status=1
tail -8 "$OUT/sweep-contiguous-baseline.log"
python3 families/layer_norm_modulate_token_major/tools/goal.py "$OUT/reports/layer_norm_modulate_token_major/sweep.yaml" \
  "$OUT/reports/contiguous-baseline/sweep.yaml" | tee "$OUT/goal.txt" || status=1
tar czf /tmp/00-gpu-results.tgz -C "$OUT" --exclude=00-gpu-results.tgz . && mv /tmp/00-gpu-results.tgz "$OUT/"
exit $status
