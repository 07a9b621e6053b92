#!/usr/bin/env bash
# Sets everything up (Python deps, the msprobe package with its C++ core) and runs the demo:
# instrumented training of a small model on CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# clang with libFuzzer and the sanitizer runtimes, for scripts/sanitize.sh and scripts/fuzz.sh
# (Debian/Ubuntu; the same packages .ci/run installs).
if ! command -v clang++ > /dev/null && command -v apt-get > /dev/null && [ "$(id -u)" = 0 ]; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev \
      > /dev/null; } ||
    echo "clang not installed: scripts/sanitize.sh and scripts/fuzz.sh need it" >&2
fi
# torch 2.13.0 CPU is pinned: a plain "torch" would pull a multi-GB CUDA build.
$PY -m pip install -q "torch==2.13.0" numpy pyyaml pytest scikit-build-core nanobind cmake ninja
$PY -m pip install -q --no-build-isolation .
scripts/mindspore_env.sh > /dev/null      # MindSpore (CPU) in build/ms-venv, for its tests
$PY examples/demo_train.py "$@"
