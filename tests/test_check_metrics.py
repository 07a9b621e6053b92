"""Accuracy metrics (msprobe._core.compare_output & co.) against the ORIGINAL 1.2.1 run_ut
Comparator, cell by cell, on generated output pairs covering every standard, dtype and edge
case (zeros, inf/nan, small values, overflow, ints, bool, shape and dtype mismatches).

The original's cells are a checked-in fixture (tests/fixtures/check_metrics_1.2.1/original_rows.json)
made by running the original in its own venv on the same tensors:
    python -m pytest tests/test_check_metrics.py --regenerate-original ../orig/bin/python
(or MSPROBE_ORIG_PYTHON=... with --regenerate-original given no path)."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from msprobe import _core  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "check_metrics_1.2.1",
                       "original_rows.json")

# Runs Comparator._compare_core of the original on every case and prints the details cells as
# its CSV writer formats them ("{:.14f}" for Python floats, str() for the rest).
ORIG_SCRIPT = r"""
import json, sys, torch
from msprobe.pytorch.api_accuracy_checker.compare.compare import Comparator
c = Comparator.__new__(Comparator)
c.registry = c._register_compare_func()
cases = torch.load(sys.argv[1], weights_only=True)
out = []
for api, b, d in cases:
    st, col, msg = c._compare_core(api, b, d)
    cells = col.to_column_value(st, msg)
    out.append(["{:.14f}".format(x) if isinstance(x, float) else str(x) for x in cells])
print(json.dumps(out))
"""

STANDARD_APIS = ["gelu", "mul", "abs", "matmul", "conv2d", "test_api"]


def _special(n, dtype, rng, kind):
    """A pair (bench, device) of n elements for the device dtype `dtype`."""
    bench_dtype = torch.float64 if dtype in (torch.float32, torch.float64) else torch.float32
    b = torch.from_numpy(rng.standard_normal(n)).to(bench_dtype)
    noise = torch.from_numpy(rng.standard_normal(n) * 1e-3).to(bench_dtype)
    if kind == "close":
        d = (b * (1 + noise * 1e-2)).to(dtype)
    elif kind == "noisy":
        d = (b + noise * 50).to(dtype)
    elif kind == "small":
        b = b * 1e-7
        d = (b + noise * 1e-6).to(dtype)
    elif kind == "specials":
        b = b.clone()
        d = (b + noise).to(dtype)
        if n >= 8:
            b[0], d[0] = float("inf"), float("inf")
            b[1], d[1] = float("nan"), float("nan")
            b[2], d[2] = 3.0, float("inf")
            b[3], d[3] = float("inf"), 2.0
            b[4], d[4] = float("nan"), 1.0
            b[5], d[5] = 0.0, 0.0
            b[6], d[6] = -float("inf"), float("inf")
    elif kind == "zeros_device":
        d = torch.zeros(n, dtype=dtype)
    elif kind == "zeros_both":
        b = torch.zeros(n, dtype=bench_dtype)
        d = torch.zeros(n, dtype=dtype)
    elif kind == "big":
        b = b * 6e4 if dtype == torch.float16 else b * 1e30
        d = (b * (1 + noise)).to(dtype)
    elif kind == "exact":
        d = b.to(dtype)
    else:
        raise ValueError(kind)
    return b, d


def build_cases():
    rng = np.random.default_rng(20250207)
    cases = []
    kinds = ["close", "noisy", "small", "specials", "zeros_device", "zeros_both", "big", "exact"]
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        for api in STANDARD_APIS:
            for kind in kinds:
                for n in (1, 9, 257, 4103):
                    b, d = _special(n, dtype, rng, kind)
                    cases.append((api, b, d))
    # fp16 bench (goldens computed in the input dtype) and fp32 bench for an fp32 device (conv)
    for api in STANDARD_APIS:
        b = torch.from_numpy(rng.standard_normal(300)).to(torch.float16)
        cases.append((api, b, (b.float() + 1e-3).half()))
        b = torch.from_numpy(rng.standard_normal(300)).float()
        cases.append((api, b, b + 1e-5 * torch.from_numpy(rng.standard_normal(300)).float()))
    # ULP edge: bench values just below powers of two, subnormals, tiny bf16 values
    pw = torch.tensor([1.0, 2.0, 1024.0, 2.0 ** -30, 0.5], dtype=torch.float64)
    below = torch.nextafter(pw, torch.zeros_like(pw))
    b = torch.cat([below, pw, torch.tensor([1e-40, 2.0 ** -125, 3e-39])])
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        bb = b if dtype == torch.float32 else b.float()
        cases.append(("matmul", bb, (bb * (1 + 1e-3)).to(dtype)))
    # multi-dimensional and non-contiguous
    b = torch.from_numpy(rng.standard_normal((6, 7))).float()
    cases.append(("gelu", b.t(), (b.t() + 1e-2).half()))
    cases.append(("matmul", b.double()[:, ::2], b[:, ::2] + 1e-4))
    # ints / bool / mismatches / empty
    cases.append(("argmax", torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4])))
    cases.append(("argmax", torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([1, 2, 3])))
    cases.append(("eq", torch.tensor([True, False]), torch.tensor([True, True])))
    cases.append(("eq", torch.tensor([1, 0], dtype=torch.uint8), torch.tensor([True, False])))
    cases.append(("add", torch.tensor([1, 2], dtype=torch.int8), torch.tensor([1, 2], dtype=torch.int8)))
    cases.append(("add", torch.tensor([1.0, 2.0]), torch.tensor([1, 2])))
    cases.append(("add", torch.ones(2, 3), torch.ones(3, 2)))
    cases.append(("add", torch.ones(0), torch.ones(0)))
    return cases


def _close(ours, theirs):
    if ours == theirs:
        return True
    try:
        a, b = float(ours), float(theirs)
    except ValueError:
        return False
    if math.isnan(a) and math.isnan(b):
        return True
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)


def _run_original(orig_python, cases, tmp_dir):
    path = os.path.join(tmp_dir, "cases.pt")
    torch.save(cases, path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # not our overlay
    r = subprocess.run([orig_python, "-c", ORIG_SCRIPT, path], capture_output=True, text=True,
                       timeout=600, env=env)
    assert r.returncode == 0, f"the original could not run: {r.stderr[-1500:]}"
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def original_rows(request, tmp_path_factory):
    cases = build_cases()
    orig_python = request.config.getoption("--regenerate-original", default=None)
    if orig_python:
        rows = _run_original(orig_python, cases, str(tmp_path_factory.mktemp("orig")))
        os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
        with open(FIXTURE, "w") as f:
            json.dump(rows, f, indent=0)
    with open(FIXTURE) as f:
        return cases, json.load(f)


def test_compare_output_matches_original(original_rows):
    cases, rows = original_rows
    assert len(rows) == len(cases)
    bad = []
    for (api, b, d), theirs in zip(cases, rows):
        ours = _core.compare_output(api, b, d).detail_cells()
        for k, (x, y) in enumerate(zip(ours, theirs)):
            if not _close(x, y):
                bad.append(f"{api} {b.dtype}->{d.dtype} n={d.numel()} col {k}: ours {x!r} orig {y!r}")
    assert not bad, f"{len(bad)} differing cells:\n" + "\n".join(bad[:40])


SCALAR_SCRIPT = r"""
import json, sys, torch
from msprobe import _core
cases = torch.load(sys.argv[1], weights_only=True)
print(json.dumps([_core.compare_output(api, b, d).detail_cells() for api, b, d in cases]))
"""


def test_simd_and_scalar_paths_identical(tmp_path):
    """The AVX2 kernel and the scalar kernel (MSPROBE_CHECK_SIMD=0) give identical cells."""
    cases = build_cases()
    path = tmp_path / "cases.pt"
    torch.save(cases, str(path))
    env = dict(os.environ, MSPROBE_CHECK_SIMD="0")
    r = subprocess.run([sys.executable, "-c", SCALAR_SCRIPT, str(path)], capture_output=True,
                       text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr
    scalar = json.loads(r.stdout)
    simd = [_core.compare_output(api, b, d).detail_cells() for api, b, d in cases]
    assert simd == scalar


def test_merge_any_error_wins():
    # 1.2.1 returns Warning for [error, Warning]; we keep the error (documented fix).
    assert _core.merge_output_statuses(["error", "Warning"]) == "error"
    assert _core.merge_output_statuses(["Warning", "error"]) == "error"
    assert _core.merge_output_statuses(["pass", "Warning", "SKIP"]) == "Warning"
    assert _core.merge_output_statuses(["SKIP"]) == "pass"
    assert _core.merge_output_statuses([]) == "pass"


def test_dropout_rule():
    z = torch.zeros(60)
    o = torch.ones(60)
    assert _core.compare_dropout(torch.cat([z, o]), torch.cat([z, o])) == ("pass", 1)
    assert _core.compare_dropout(torch.cat([z, o]), torch.ones(120)) == ("error", 0)
    assert _core.compare_dropout(torch.zeros(10), torch.ones(10)) == ("pass", 1)


def test_standard_lookup():
    assert _core.standard_for_api("conv2d") == "thousandth_threshold"
    assert _core.standard_for_api("__matmul__") == "ulp_compare"
    assert _core.standard_for_api("mul_") == "absolute_threshold"
    assert _core.standard_for_api("topk") == "binary_consistency"
    assert _core.standard_for_api("test_api") == "accumulative_error_compare"
    assert _core.standard_for_api("softmax") == "benchmark"
    assert _core.standard_for_precision_row("softmax", "torch.int64") == "binary_consistency"
    assert _core.standard_for_precision_row("softmax", "torch.float64") == "benchmark"
    assert _core.standard_label("ulp_compare") == "ULP误差比对法"


def test_bad_inputs():
    with pytest.raises(TypeError):
        _core.compare_output("add", [1, 2], torch.ones(2))
    with pytest.raises(ValueError):
        _core.float_metrics(torch.ones(2), torch.ones(3))
    with pytest.raises(ValueError):
        _core.float_metrics(torch.ones(2), torch.ones(2), "nope")
