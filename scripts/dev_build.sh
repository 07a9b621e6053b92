#!/usr/bin/env bash
# Developer build without installing: compiles msprobe._core into build/dev-NAME and assembles an
# importable overlay (the Python sources symlinked, plus the fresh module) in build/dev-NAME/pkg.
# Usage: eval "$(scripts/dev_build.sh NAME)"   # then python/pytest see this tree's msprobe
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-me}
build=build/dev-$name
cmake -S . -B "$build" -G Ninja -DMSPROBE_BUILD_TESTS=ON >/dev/null
cmake --build "$build" >&2
pkg=$PWD/$build/pkg/msprobe
rm -rf "$pkg"; mkdir -p "$pkg"
for f in python/msprobe/*; do
  case "$f" in *.so) continue;; esac
  ln -s "$PWD/$f" "$pkg/"
done
cp "$build"/_core*.so "$pkg/"
echo "export PYTHONPATH=$PWD/$build/pkg"
