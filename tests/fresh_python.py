"""Runs Python code or a script in a fresh interpreter (the tests' own, or MindSpore's venv)."""
import atexit
import importlib.util
import os
import shutil
import subprocess
import tempfile

_OVERLAY = []


def msprobe_overlay():
    """A folder holding only `msprobe`, a link to the package this interpreter imports (the one
    under test). First on another interpreter's PYTHONPATH (MindSpore's: build/ms-venv or
    $MSPROBE_MS_PYTHON), it makes that interpreter run the same msprobe, and brings nothing else
    of this one (its NumPy 2 stays out). Made once per test session, removed at exit."""
    if not _OVERLAY:
        pkg = importlib.util.find_spec("msprobe").submodule_search_locations[0]
        folder = tempfile.mkdtemp(prefix="overlay-")
        os.symlink(pkg, os.path.join(folder, "msprobe"))
        atexit.register(shutil.rmtree, folder, True)
        _OVERLAY.append(folder)
    return _OVERLAY[0]


def run_fresh_python(interpreter, search_dir, code_or_path, *args, cwd=None, env=None, timeout=300,
                     check=True, unset=()):
    """`search_dir` goes first on PYTHONPATH; `unset` names variables the child must not inherit.
    Returns the CompletedProcess; with `check`, a non-zero exit fails with both outputs."""
    cmd = [interpreter]
    cmd += [code_or_path] if os.path.exists(str(code_or_path)) else ["-c", code_or_path]
    full_env = dict(os.environ, PYTHONPATH=search_dir + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for name in unset:
        full_env.pop(name, None)
    full_env.update(env or {})
    r = subprocess.run(cmd + list(args), cwd=cwd, env=full_env, capture_output=True, text=True,
                       timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
    return r
