"""Helpers of the MindSpore tests: dump readers and a fresh-interpreter runner."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The interpreter that runs MindSpore. MindSpore 2.10 needs NumPy < 2, while the rest of the suite
# may run with NumPy 2: point MSPROBE_MS_PYTHON at a venv that has MindSpore and NumPy < 2 (see
# docs/mindspore_dump.md). Every MindSpore test runs its training in that interpreter.
MS_PYTHON = os.environ.get("MSPROBE_MS_PYTHON") or sys.executable


def load_json(path):
    with open(path) as f:
        return json.load(f)


def rank_dir(dump_path, step=0, rank=""):
    return os.path.join(str(dump_path), f"step{step}", f"rank{rank}")


def load_dump(dump_path, step=0, rank=""):
    d = rank_dir(dump_path, step, rank)
    return (load_json(os.path.join(d, "dump.json")), load_json(os.path.join(d, "stack.json")),
            load_json(os.path.join(d, "construct.json")))


def run_python(code_or_path, *args, cwd=None, env=None, timeout=600, check=True):
    """Runs Python code (a string) or a script in a fresh interpreter; returns CompletedProcess."""
    cmd = [MS_PYTHON]
    cmd += [code_or_path] if os.path.exists(str(code_or_path)) else ["-c", code_or_path]
    full_env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    full_env.pop("MSPROBE_ORIGINAL_SHIM", None)
    full_env.update(env or {})
    r = subprocess.run(cmd + list(args), cwd=cwd, env=full_env, capture_output=True, text=True,
                       timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}")
    return r


def tensors(node, path=""):
    """(path, tensor object) of every tensor record under `node`."""
    if isinstance(node, dict):
        if node.get("type") == "mindspore.Tensor" and "shape" in node:
            yield path, node
        else:
            for k, v in node.items():
                yield from tensors(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from tensors(v, f"{path}.{i}")
