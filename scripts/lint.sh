#!/usr/bin/env bash
# Style checks: ruff (pyproject.toml [tool.ruff]) on the Python, clang-format (.clang-format) on
# the C++. Exits non-zero when either finds something; --count prints totals per check instead.
# Fix: ruff check --fix python tests bench; clang-format-14 -i FILE...
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
CLANG_FORMAT=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [ -z "$CLANG_FORMAT" ]; then
  echo "msprobe: clang-format not found (apt-get install clang-format-14)" >&2
  exit 2
fi
mapfile -t cpp_files < <(git ls-files 'cpp/*.cc' 'cpp/*.h')
status=0
if [ "${1:-}" = "--count" ]; then
  "$PY" -m ruff check --statistics python tests bench || true
  changed=0
  for f in "${cpp_files[@]}"; do
    "$CLANG_FORMAT" --dry-run --Werror "$f" 2> /dev/null || changed=$((changed + 1))
  done
  echo "clang-format: $changed of ${#cpp_files[@]} C++ files need formatting"
  exit 0
fi
"$PY" -m ruff check python tests bench || status=1
"$CLANG_FORMAT" --dry-run --Werror "${cpp_files[@]}" || status=1
exit $status
