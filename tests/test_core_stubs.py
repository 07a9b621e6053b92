"""The checked-in type stubs of msprobe._core (python/msprobe/_core/*.pyi) match the built module:
nanobind's stubgen regenerates them into a temporary folder and every file must be equal.
After changing the bindings run scripts/gen_stubs.sh."""
import os
import subprocess
import sys

import pytest

nanobind = pytest.importorskip("nanobind")

STUB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "msprobe", "_core")
HINT = ("the stubs of msprobe._core are out of date: run scripts/gen_stubs.sh and commit python/msprobe/_core/ "
        f"(nanobind {nanobind.__version__} here; scripts/install_deps.sh pins the version that wrote them)")


def test_stubs_match_module(tmp_path):
    r = subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-r", "-m", "msprobe._core",
                        "-O", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    fresh_dir = tmp_path / "_core"
    fresh = sorted(os.listdir(fresh_dir))
    checked_in = sorted(f for f in os.listdir(STUB_DIR) if f.endswith(".pyi"))
    assert fresh == checked_in, f"{HINT} (files {checked_in} vs generated {fresh})"
    for name in fresh:
        with open(os.path.join(STUB_DIR, name), encoding="utf-8") as f:
            want = f.read()
        got = (fresh_dir / name).read_text(encoding="utf-8")
        assert got == want, f"{HINT} ({name} differs)"
