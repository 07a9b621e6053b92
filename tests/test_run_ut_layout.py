"""run_ut's package layout: the 1.2.1 paths still lead to the code, the package has no import
cycle, and one module alone reads the API list (so it can move to the core catalogue)."""
import ast
import os
import subprocess
import sys

import pytest

import msprobe.pytorch.run_ut as run_ut_pkg

PKG_DIR = os.path.dirname(run_ut_pkg.__file__)
PKG = "msprobe.pytorch.run_ut"


def _modules():
    """{module name: set of msprobe.pytorch.run_ut modules it imports} over the package's files."""
    graph = {}
    for root, _, files in os.walk(PKG_DIR):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, PKG_DIR)[:-3].replace(os.sep, ".")
            name = PKG if rel == "__init__" else f"{PKG}.{rel.removesuffix('.__init__')}"
            deps = set()
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    deps.update(a.name for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module:
                    deps.add(node.module)
                    deps.update(f"{node.module}.{a.name}" for a in node.names)
            graph[name] = deps
    return graph


def test_no_import_cycle():
    graph = _modules()
    edges = {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}
    state = {}

    def visit(m, path):
        if state.get(m) == "open":
            pytest.fail("import cycle: " + " -> ".join(path[path.index(m):] + [m]))
        if state.get(m) == "done":
            return
        state[m] = "open"
        for d in sorted(edges[m]):
            visit(d, path + [m])
        state[m] = "done"

    for m in sorted(edges):
        visit(m, [])


def test_api_list_read_in_one_place():
    graph = _modules()
    readers = sorted(m for m, deps in graph.items()
                     if any(d.startswith(("msprobe.pytorch.api_wrapper", "msprobe.pytorch.hook",
                                          "msprobe.core.api_catalogue"))
                            or d.endswith("support_wrap_ops") for d in deps))
    assert readers == [f"{PKG}.api_list"]
    from msprobe.pytorch.run_ut.api_list import supported_apis
    lists = supported_apis()
    assert "add" in lists["torch"] and "relu" in lists["functional"] and "__getitem__" in lists["tensor"]


def test_legacy_import_paths_are_the_new_modules():
    import msprobe.pytorch.api_accuracy_checker.common.config as old_config
    import msprobe.pytorch.api_accuracy_checker.run_ut.multi_run_ut as old_multi
    import msprobe.pytorch.api_accuracy_checker.run_ut.run_ut as old_run_ut
    from msprobe.pytorch.api_accuracy_checker.compare.api_precision_compare import api_precision_compare
    from msprobe.pytorch.run_ut import config, multi_run_ut, run_ut
    assert old_run_ut is run_ut and old_multi is multi_run_ut and old_config is config
    assert callable(old_run_ut.run_ut_command) and callable(old_multi.multi_run_ut_command)
    assert old_config.CheckerConfig().precision == 14   # reads the packaged config.yaml
    assert callable(api_precision_compare)


def test_legacy_script_path_runs():
    """`python .../api_accuracy_checker/run_ut/run_ut.py -h`, as 1.2.1's docs run it."""
    import msprobe.pytorch.api_accuracy_checker.run_ut as old_pkg
    script = os.path.join(os.path.dirname(old_pkg.__file__), "run_ut.py")
    r = subprocess.run([sys.executable, script, "-h"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "-api_info" in r.stdout and "-csv_path" in r.stdout


def test_one_config_yaml():
    """api_precision_compare (torch-free) reads run_ut's config.yaml by path: the same file."""
    from msprobe.core import api_precision_compare
    from msprobe.pytorch.run_ut import config
    assert os.path.isfile(config.CONFIG_YAML)
    assert os.path.samefile(api_precision_compare.CONFIG_YAML, config.CONFIG_YAML)
