#!/usr/bin/env bash
# Runs every test: the C++ GoogleTest suite, then the Python suite (real torch, real files,
# real processes). Rebuilds the package first so the tests see the current sources.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
scripts/install_deps.sh
scripts/lint.sh                # style: ruff and clang-format (configs in pyproject.toml, .clang-format)
$PY -m pip install -q --no-build-isolation .
# The C++ tests with the compiler of the package's build (scikit-build-core takes $CXX, else
# Python's sysconfig CXX): same compiler, same flags, so ccache gives them the core's objects.
CXX=${CXX:-$($PY -c "import sysconfig; print((sysconfig.get_config_var('CXX') or 'c++').split()[0])")} \
  cmake -S . -B build/tests -G Ninja -DMSPROBE_BUILD_TESTS=ON -DMSPROBE_BUILD_PYTHON=OFF \
        -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build/tests
./build/tests/msprobe_cpp_tests --gtest_brief=1
# MindSpore runs in its own interpreter (NumPy < 2), created on first use: without torch (the
# MindSpore-only install the MindSpore tests prove), and with it for MindSpore's run_ut.
MSPROBE_MS_PYTHON=$(scripts/mindspore_env.sh)
MSPROBE_MS_TORCH_PYTHON=$(scripts/mindspore_env.sh --torch)
export MSPROBE_MS_PYTHON MSPROBE_MS_TORCH_PYTHON
$PY -m pytest -q tests "$@"
# When the whole suite runs: reliability (the C++ tests and a short Python run under ASan+UBSan,
# the threaded code under TSan, every fuzz target from its seeds: docs/reliability.md), and the
# tests whose goldens depend on float kernels once more as on another CPU (tests/tolerances.py).
if [ $# -eq 0 ]; then
  scripts/sanitize.sh
  scripts/fuzz.sh
  scripts/other_cpu.sh
fi
