#!/usr/bin/env bash
# Prints the Python that runs MindSpore for the tests and demos, creating it on first use:
# MindSpore 2.10 (CPU) is built against NumPy 1.x while the rest of the project uses NumPy 2, so
# it lives in its own venv (build/ms-venv) that also sees this interpreter's packages (torch,
# msprobe). $MSPROBE_MS_PYTHON, when set, wins.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${MSPROBE_MS_PYTHON:-}" ]; then echo "$MSPROBE_MS_PYTHON"; exit 0; fi
PY=${PYTHON:-python3}
venv=$PWD/build/ms-venv
if ! "$venv/bin/python" -c "import mindspore" >/dev/null 2>&1; then
  echo "[setup] creating $venv with mindspore==2.10.0 (CPU) and numpy<2 ..." >&2
  $PY -m venv --system-site-packages "$venv" >&2
  "$venv/bin/python" -m pip install -q "mindspore==2.10.0" "numpy<2" >&2
fi
echo "$venv/bin/python"
