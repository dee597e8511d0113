#!/usr/bin/env bash
# Disassembles fused variants for reading, on a machine with cuobjdump: the
# kernels come from `exactune compile --save-binaries`, so they are exactly what
# the harness runs. Writes DIR/<kernel>.sass and prints each kernel's
# instruction count by opcode.
#   usage: ci/sass.sh [-o DIR] [-a ARCH] GLOB ...   e.g. ci/sass.sh 'w2_r1_predicated_v16_reload_fold_late_*'
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${OUT:-/tmp/exactune-sass}/sass
arch=sm_90
while getopts "o:a:" opt; do
  case $opt in
    o) dir=$OPTARG ;;
    a) arch=$OPTARG ;;
    *) echo "usage: ci/sass.sh [-o DIR] [-a ARCH] GLOB ..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
mkdir -p "$dir"
bin=${EXACTUNE_BUILD_DIR:-build}/exactune
for glob in "$@"; do
  "$bin" compile --arch "$arch" --variants "$glob" --no-table --save-binaries "$dir" >/dev/null
done
for cubin in "$dir"/*.cubin; do
  kernel=$(basename "$cubin" .cubin)
  # The cubin is the kernel's NVRTC batch's: only its own function.
  cuobjdump -sass -fun "$(cat "$dir/$kernel.entry")" "$cubin" >"$dir/$kernel.sass"
  # SASS lines look like "        /*0090*/                   FFMA R5, R2, R3, R4 ;"
  opcodes=$(sed -nE 's|^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T]+\s+)?([A-Z0-9]+).*|\2|p' "$dir/$kernel.sass")
  echo "== $kernel: $(echo "$opcodes" | grep -c .) instructions"
  echo "$opcodes" | sort | uniq -c | sort -rn | head -16 | awk '{printf "  %6d %s\n", $1, $2}'
done
