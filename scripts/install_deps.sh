#!/usr/bin/env bash
# Installs what building and testing msprobe needs on a fresh Debian/Ubuntu machine; quick when
# everything is already there. Called by setup_and_demo.sh, run_tests.sh and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export DEBIAN_FRONTEND=noninteractive

# Debian packages, each with the file that shows it is installed:
#   libgtest-dev      GoogleTest (the C++ test suite)
#   libxlsxwriter-dev compare's .xlsx files (with zlib and pkg-config to find it)
#   clang + libclang-rt-14-dev  libFuzzer and the sanitizer runtimes (scripts/fuzz.sh, sanitize.sh)
#   libjs-dygraphs    the charting library embedded in the HTML report at build time
#   chromium          headless browser for the report's tests
#   clang-format-14   C++ style check (scripts/lint.sh)
#   ccache            compiler cache (CMakeLists.txt uses it when installed): the package and the
#                     test suite share the core's objects, and a fresh clone reuses earlier ones
missing=()
# $2: a command, or a path (may be a glob)
need() { compgen -G "$2" > /dev/null || command -v "$2" > /dev/null 2>&1 || missing+=("$1"); }
need g++ g++
need libgtest-dev /usr/include/gtest/gtest.h
need libxlsxwriter-dev /usr/include/xlsxwriter.h
need zlib1g-dev /usr/include/zlib.h
need pkg-config pkg-config
need clang clang++
need libclang-rt-14-dev /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a
need libjs-dygraphs /usr/share/javascript/dygraphs/dygraph.min.js
need chromium chromium
need clang-format-14 clang-format-14
need ccache ccache
# python3-venv: Debian's python3 makes venvs (build/ms-venv, scripts/mindspore_env.sh) only with it
"$PY" -c "import ensurepip" 2> /dev/null || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" > /dev/null
  else
    echo "msprobe: please install these Debian packages (as root): ${missing[*]}" >&2
    exit 1
  fi
fi

# Python packages. torch 2.13.0 CPU is pinned: a plain "torch" would pull a multi-GB CUDA build.
# MindSpore 2.10 (CPU, NumPy < 2) gets its own venv, created by scripts/mindspore_env.sh.
# nanobind is pinned too: its stubgen writes the checked-in python/msprobe/_core/*.pyi, and
# tests/test_core_stubs.py compares them text for text. transformers is pinned as well: the real-client
# fixtures (tests/fixtures/original_1.2.1/transformers) hold 5.24.0's module and API names.
# matplotlib: GradComparator's pictures (grad_probe, the "grad" extra) and TrainerMon's
# ur_distribution heat maps (the "monitor" extra); its pillow decodes them in the monitor tests.
# tensorboard: the training monitor's format "tensorboard" (TrainerMon), read back by its tests.
# accelerate: transformers' Trainer needs it (the monitor's Trainer test); torch stays the pinned CPU one.
$PY -m pip install -q "torch==2.13.0" numpy pyyaml pytest scikit-build-core "nanobind==3.1.0" cmake ninja \
  "transformers==5.24.0" openpyxl "dask[distributed]" ruff matplotlib "tensorboard==2.21.0" \
  "accelerate==1.15.0"
