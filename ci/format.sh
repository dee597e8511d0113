#!/usr/bin/env bash
# Formats the C++ of the tree with clang-format and the repository's .clang-format
# (ci/format.sh), or lists the files that are not formatted and fails
# (ci/format.sh --check). Left out: the generated files of reports/, the vendored
# Catch2 single header, test data (kernels and files read as they are), and the
# sources pasted into generated files (harness/report/generated/ has a
# .clang-format of its own that says so).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "error: clang-format is not installed (Debian: apt-get install clang-format)" >&2
  exit 2
fi
# New files count before they are added: a commit made right after formatting is formatted.
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.h' '*.cuh' | grep -v -e '^tests/catch\.hpp$' -e '/data/' -e '^tests/data/' -e '^reports/')
if [ "${1:-}" = "--check" ]; then
  status=0
  for f in "${files[@]}"; do
    if ! clang-format --style=file "$f" | cmp -s - "$f"; then
      echo "not formatted: $f"
      status=1
    fi
  done
  exit $status
fi
clang-format --style=file -i "${files[@]}"
