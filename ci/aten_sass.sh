#!/usr/bin/env bash
# aten's own LayerNorm machine code, from the installed torch's binary, for
# confirming the FMA pattern exactune's reference replicates (docs/aten-layernorm-bf16.md).
# On the GPU machine: extracts the sm_90 cubins of libtorch_cuda.so, keeps those
# that hold vectorized_layer_norm_kernel, and writes each such function's SASS
# to DIR/<n>.sass with an opcode count (FFMA, MUFU.RSQ, FADD, FMUL...). Also
# prints torch's version and CUDA build, which name the reference recipe.
#   usage: ci/aten_sass.sh [-o DIR] [-a ARCH]
set -euo pipefail
dir=${OUT:-/tmp/exactune-aten-sass}/aten-sass
arch=sm_90
while getopts "o:a:" opt; do
  case $opt in
    o) dir=$OPTARG ;;
    a) arch=$OPTARG ;;
    *) echo "usage: ci/aten_sass.sh [-o DIR] [-a ARCH]" >&2; exit 2 ;;
  esac
done
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p "$dir"
python3 -c 'import torch; print("torch", torch.__version__, "cuda build", torch.version.cuda)' | tee "$dir/torch-version.txt"
lib=$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cuda.so"))')
work=$(mktemp -d /tmp/aten-cubins.XXXX)
trap 'rm -rf "$work"' EXIT
# -xelf writes every cubin of the chosen architecture into the current folder.
(cd "$work" && cuobjdump -arch "$arch" -xelf all "$lib" >/dev/null)
echo "$(ls "$work" | wc -l) $arch cubins in $lib"
n=0
for cubin in $(grep -l "vectorized_layer_norm_kernel" "$work"/*.cubin); do
  # One file per cubin; the functions are split below by their "Function :" lines.
  cuobjdump -sass "$cubin" | awk -v out="$dir" -v base="$(basename "$cubin" .cubin)" '
    /Function : / { keep = ($0 ~ /vectorized_layer_norm_kernel/); if (keep) { file = out "/" base "." ++k ".sass"; print > file } next }
    keep { print > file }'
  n=$((n + 1))
done
echo "$n cubins hold vectorized_layer_norm_kernel"
for sass in "$dir"/*.sass; do
  [ -e "$sass" ] || continue
  name=$(grep -m1 "Function : " "$sass" | sed 's/.*Function : //')
  demangled=$(echo "$name" | c++filt | cut -c1-200)
  opcodes=$(sed -nE 's|^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T]+\s+)?([A-Z0-9.]+).*|\2|p' "$sass")
  echo "== $(basename "$sass"): $demangled"
  echo "$opcodes" | grep -E '^(FFMA|FADD|FMUL|MUFU|FSETP|FSEL|F2F|I2F|FRND|SHFL)' | sort | uniq -c | sort -rn | head -12 |
    awk '{printf "  %6d %s\n", $1, $2}'
done
