#!/usr/bin/env bash
# Where the token-major kernels' time goes, from the hardware counters: Nsight
# Compute (ncu) on one launch of each named variant on Sana's shape, x
# token-major for this family's variants and contiguous for the contiguous
# family's, so that the in-place reads can be set beside the kernel they are
# held to. Needs a GPU whose counters ncu can read and a built exactune.
# Writes <out>/<variant>.txt (ncu's details page) and <out>/counters.txt (the
# load counters of every variant side by side).
#   usage: families/layer_norm_modulate_token_major/tools/profile.sh BIN OUT \
#            'token_major:VARIANT' 'contiguous:VARIANT' ...
set -uo pipefail
cd "$(dirname "$0")/../../.."
bin=$1 out=$2
shift 2
mkdir -p "$out"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
shapes=$out/sana.yaml
cat >"$shapes" <<'EOF'
shapes:
  - {name: sana-1024px, model: "Sana 1024px", batch: 2, tokens: 1024, hidden: 2240, eps: 1.0e-6, modulation_rows: 6}
EOF
status=0
: >"$out/counters.txt"
for spec in "$@"; do
  layout=${spec%%:*} variant=${spec#*:}
  case $layout in
    token_major) family=layer_norm_modulate_token_major kernel='regex:^token_major' ;;
    contiguous) family=layer_norm_modulate kernel='regex:^fused_layer_norm_modulate' ;;
    *) echo "profile.sh: '$spec': the layout must be token_major or contiguous" >&2; exit 2 ;;
  esac
  # The first launch of the variant's kernel: verify's first input case.
  timeout 240 "$ncu" --clock-control none --cache-control all --kernel-name-base function -k "$kernel" -c 1 \
    --set detailed --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --print-details all \
    "$bin" verify --family "$family" --shapes "$shapes" --variants "$variant" --no-table --deadline 200 \
    >"$out/$variant.txt" 2>&1 || { status=1; echo "profile.sh: ncu failed on $variant (see $variant.txt)"; }
  {
    echo "== $layout $variant"
    grep -E "Duration|Elapsed Cycles|SM Active Cycles|DRAM Throughput|L1/TEX Hit Rate|L2 Hit Rate|Registers Per Thread|Achieved Active Warps|Grid Size|Block Size|Issue Slots Busy|Warp Cycles Per Issued|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|[Ss]tall|[Ww]avefronts|Sectors/Req" \
      "$out/$variant.txt" | sed 's/  */ /g'
  } >>"$out/counters.txt"
done
cat "$out/counters.txt"
exit $status
