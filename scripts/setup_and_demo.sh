#!/usr/bin/env bash
# Sets everything up (Python deps, the msprobe package with its C++ core) and runs the demo:
# instrumented training of a small model on CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# compare writes .xlsx with libxlsxwriter (C library, Debian/Ubuntu package libxlsxwriter-dev).
if ! [ -f /usr/include/xlsxwriter.h ] && command -v apt-get > /dev/null; then
  apt-get install -y -qq libxlsxwriter-dev zlib1g-dev pkg-config > /dev/null
fi
# torch 2.13.0 CPU is pinned: a plain "torch" would pull a multi-GB CUDA build.
$PY -m pip install -q "torch==2.13.0" numpy pyyaml pytest scikit-build-core nanobind cmake ninja transformers \
  openpyxl "dask[distributed]"
$PY -m pip install -q --no-build-isolation .
scripts/mindspore_env.sh > /dev/null      # MindSpore (CPU) in build/ms-venv, for its tests
$PY examples/demo_train.py "$@"
