#!/usr/bin/env bash
# Runs every test: the C++ GoogleTest suite, then the Python suite (real torch, real files,
# real processes). Rebuilds the package first so the tests see the current sources.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
scripts/install_deps.sh
scripts/lint.sh                # style: ruff and clang-format (configs in pyproject.toml, .clang-format)
$PY -m pip install -q --no-build-isolation .
cmake -S . -B build/tests -G Ninja -DMSPROBE_BUILD_TESTS=ON -DMSPROBE_BUILD_PYTHON=OFF \
      -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build/tests
./build/tests/msprobe_cpp_tests --gtest_brief=1
# MindSpore runs in its own interpreter (NumPy < 2); created on first use.
MSPROBE_MS_PYTHON=$(scripts/mindspore_env.sh)
export MSPROBE_MS_PYTHON
$PY -m pytest -q tests "$@"
# Reliability (when the whole suite runs): the C++ tests and a short Python run under ASan+UBSan,
# the threaded code under TSan, and every fuzz target from its seeds (docs/reliability.md).
if [ $# -eq 0 ]; then
  scripts/sanitize.sh
  scripts/fuzz.sh
fi
