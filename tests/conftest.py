"""Shared pytest fixtures: a fresh PrecisionDebugger per test, dump readers, subprocess runner."""
import json
import os
import subprocess
import sys

import pytest

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def fresh_debugger(tmp_path, monkeypatch):
    """Runs the test in tmp_path and removes every hook of the singleton afterwards."""
    from msprobe.pytorch import PrecisionDebugger
    monkeypatch.chdir(tmp_path)
    PrecisionDebugger._reset_for_tests()
    yield PrecisionDebugger
    PrecisionDebugger._reset_for_tests()


# The device path (msprobe/core/device_path.py) forced onto CPU tensors: modules that use this
# fixture run all their tests twice, on the host path and through the device path.
DEVICE_PATHS = ("host", "forced")
FORCE_DEVICE_ENV = "MSPROBE_FORCE_DEVICE_PATH"


@pytest.fixture(scope="module", params=DEVICE_PATHS)
def device_path(request):
    """Sets MSPROBE_FORCE_DEVICE_PATH for in-process debuggers and child processes alike."""
    mp = pytest.MonkeyPatch()
    if request.param == "forced":
        mp.setenv(FORCE_DEVICE_ENV, "1")
    else:
        mp.delenv(FORCE_DEVICE_ENV, raising=False)
    yield request.param
    mp.undo()


def load_json(path):
    with open(path) as f:
        return json.load(f)


def rank_dir(dump_path, step=0, rank=""):
    return os.path.join(str(dump_path), f"step{step}", f"rank{rank}")


def load_dump(dump_path, step=0, rank=""):
    d = rank_dir(dump_path, step, rank)
    return (load_json(os.path.join(d, "dump.json")), load_json(os.path.join(d, "stack.json")),
            load_json(os.path.join(d, "construct.json")))


def run_python(code_or_path, *args, cwd=None, env=None, timeout=300, check=True):
    """Runs Python code (a string) or a script in a fresh interpreter; returns CompletedProcess."""
    cmd = [sys.executable]
    cmd += [code_or_path] if os.path.exists(str(code_or_path)) else ["-c", code_or_path]
    full_env = dict(os.environ, PYTHONPATH=TESTS_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    full_env.update(env or {})
    r = subprocess.run(cmd + list(args), cwd=cwd, env=full_env, capture_output=True, text=True,
                       timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
    return r


def pytest_addoption(parser):
    parser.addoption("--regenerate-original", metavar="ORIGINAL_PYTHON", default=None,
                     help="re-run the original msprobe 1.2.1 (that venv's python) to rewrite the "
                          "golden fixtures of tests that support it")
