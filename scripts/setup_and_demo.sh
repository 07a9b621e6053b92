#!/usr/bin/env bash
# Sets everything up (Debian and Python packages, the msprobe package with its C++ core) and runs
# the demo: instrumented training of a small model on CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
scripts/install_deps.sh
$PY -m pip install -q --no-build-isolation .
scripts/mindspore_env.sh > /dev/null      # MindSpore (CPU) in build/ms-venv, for its tests
$PY examples/demo_train.py "$@"
