"""Shared pytest fixtures: a fresh PrecisionDebugger per test, dump readers, subprocess runner."""
import os
import sys

import pytest

# Shared helper modules that assert: pytest explains their failures as it does the tests'.
pytest.register_assert_rewrite("crash_checks", "kill_check", "original_dumps")
from dump_files import load_dump, load_json, rank_dir  # noqa: E402,F401  (re-exported to the tests)
from fresh_python import run_fresh_python  # noqa: E402

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


def run_python(code_or_path, *args, cwd=None, env=None, timeout=300, check=True):
    """Runs Python code (a string) or a script in a fresh interpreter; returns CompletedProcess."""
    return run_fresh_python(sys.executable, TESTS_DIR, code_or_path, *args, cwd=cwd, env=env,
                            timeout=timeout, check=check)


def pytest_addoption(parser):
    parser.addoption("--regenerate-original", metavar="ORIGINAL_PYTHON", default=None,
                     help="re-run the original msprobe 1.2.1 (that venv's python) to rewrite the "
                          "golden fixtures of tests that support it")
