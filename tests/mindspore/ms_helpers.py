"""Helpers of the MindSpore tests: the MindSpore interpreter, a runner in it, and the dump readers
(tests/dump_files.py) with MindSpore's tensor records."""
import os
import sys

from dump_files import load_dump, load_json, rank_dir, tensor_records  # noqa: F401  (re-exported)
from fresh_python import msprobe_overlay, run_fresh_python

HERE = os.path.dirname(os.path.abspath(__file__))
# The interpreter that runs MindSpore. MindSpore 2.10 needs NumPy < 2, while the rest of the suite
# may run with NumPy 2: point MSPROBE_MS_PYTHON at a venv that has MindSpore and NumPy < 2 (see
# docs/mindspore_dump.md). Every MindSpore test runs its training in that interpreter.
MS_PYTHON = os.environ.get("MSPROBE_MS_PYTHON") or sys.executable
# MindSpore's run_ut replays against PyTorch: its tests run in this one, MindSpore plus torch.
# scripts/run_tests.sh sets both from scripts/mindspore_env.sh: build/ms-venv without torch (the
# MindSpore-only install every other MindSpore test proves) and build/ms-torch-venv with it.
MS_TORCH_PYTHON = os.environ.get("MSPROBE_MS_TORCH_PYTHON") or MS_PYTHON
# What goes first on its PYTHONPATH: these helpers, and the msprobe that pytest imports (the one
# under test, whatever that interpreter has installed).
MS_SEARCH_PATH = HERE + os.pathsep + msprobe_overlay()


def ms_env(**extra):
    """os.environ for a process of MS_PYTHON started directly (not through run_python)."""
    return dict(os.environ, PYTHONPATH=MS_SEARCH_PATH + os.pathsep + os.environ.get("PYTHONPATH", ""),
                **extra)


def run_python(code_or_path, *args, cwd=None, env=None, timeout=600, check=True, interpreter=MS_PYTHON):
    """Runs Python code (a string) or a script in MindSpore's interpreter (or `interpreter`);
    returns CompletedProcess. The 1.2.1 shim switch is not inherited: only the tests that mean to
    run 1.2.1 set it."""
    return run_fresh_python(interpreter, MS_SEARCH_PATH, code_or_path, *args, cwd=cwd, env=env,
                            timeout=timeout, check=check, unset=("MSPROBE_ORIGINAL_SHIM",))


def has_torch(interpreter):
    """Whether `interpreter` (with the test search path) imports torch."""
    return run_python("import torch", check=False, interpreter=interpreter).returncode == 0


def is_mindspore_tensor(node):
    return node.get("type") == "mindspore.Tensor" and "shape" in node


def tensors(node):
    """(path, tensor object) of every tensor record under `node`."""
    return tensor_records(node, is_tensor=is_mindspore_tensor)
