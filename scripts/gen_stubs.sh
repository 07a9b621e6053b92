#!/usr/bin/env bash
# Regenerates the checked-in type stubs of the C++ module (python/msprobe/_core/*.pyi) with
# nanobind's stubgen; tests/test_core_stubs.py fails until they match the built module.
# Usage: scripts/gen_stubs.sh [NAME]
#   uses the msprobe._core on PYTHONPATH when there is one, else builds build/dev-NAME (default
#   "stubs") with scripts/dev_build.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c "import msprobe._core" 2> /dev/null; then
  eval "$(scripts/dev_build.sh "${1:-stubs}")"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -m nanobind.stubgen -q -r -m msprobe._core -O "$tmp"
rm -f python/msprobe/_core/*.pyi
mkdir -p python/msprobe/_core
cp "$tmp"/_core/*.pyi python/msprobe/_core/
echo "msprobe: stubs written to python/msprobe/_core/ ($(ls "$tmp"/_core | tr '\n' ' '))"
