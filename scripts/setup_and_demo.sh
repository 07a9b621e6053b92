#!/usr/bin/env bash
# Sets everything up (Python deps, the msprobe package with its C++ core) and runs the demo:
# instrumented training of a small model on CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# Debian packages: libjs-dygraphs (charting library embedded in the HTML report at build time),
# chromium (headless, for the report's browser tests).
if ! [ -f /usr/share/javascript/dygraphs/dygraph.min.js ] || ! command -v chromium > /dev/null; then
  apt-get update -qq && apt-get install -y -qq libjs-dygraphs chromium > /dev/null
fi
# torch 2.13.0 CPU is pinned: a plain "torch" would pull a multi-GB CUDA build.
$PY -m pip install -q "torch==2.13.0" numpy pyyaml pytest scikit-build-core nanobind cmake ninja transformers
$PY -m pip install -q --no-build-isolation .
scripts/mindspore_env.sh > /dev/null      # MindSpore (CPU) in build/ms-venv, for its tests
$PY examples/demo_train.py "$@"
