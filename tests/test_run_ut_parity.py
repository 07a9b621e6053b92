"""run_ut parity with the ORIGINAL msprobe 1.2.1 on the same real-data dump.

tests/fixtures/run_ut_1.2.1/original/ holds the two CSVs the original wrote for
tests/fixtures/run_ut_1.2.1/dump/ (see the README there). Our run on the same dump must give:
the same result rows (names, order, statuses, messages), the same details rows (names, order,
dtypes, shapes, statuses, messages) and every metric within 1e-6 relative (our sums are more
accurate than numpy's float32 pairwise sums in the last digits). Documented deliberate
differences (docs/compatibility.md) would be listed in DOCUMENTED_FIXES; this dump triggers none.

The original ran on another CPU. run_ut replays each API here, and the error metrics measure the
low bits of its output, which this CPU's kernels may round differently: a metric that is not
within 1e-6 must be within what a kernel can move it (tests/tolerances.py, by the device dtype),
and a fraction of elements counted by the sign or a threshold of their error stays a fraction.
"""
import csv
import glob
import math
import os
import shutil
import subprocess
import sys

import torch
from tolerances import EPS, dtype_name, kernel_rtol, kernel_ulps

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(TESTS_DIR, "fixtures", "run_ut_1.2.1")
DOCUMENTED_FIXES = {}  # row name -> reason, for rows where we differ on purpose

# The details columns by what they measure.
COSINE = {"余弦相似度"}
ABS_ERRORS = {"最大绝对误差", "均方根误差"}  # in units of the output
REL_ERRORS = {"相对误差最大值", "相对误差平均值"}  # relative to each bench element
ULP_ERRORS = {"ULP误差最大值", "ULP误差平均值"}  # in ulps of the device dtype
FRACTIONS = {"双百指标", "双千指标", "双万指标", "二进制一致错误率", "误差均衡性", "小值域错误占比",
             "inf/nan错误率", "相对误差错误率", "绝对误差错误率", "ULP误差大于阈值占比"}


def output_magnitudes(row_name):
    """(largest, smallest non-zero) finite magnitude of the row's tensor in the dump, the output
    run_ut replays; (0, 1) when the dump has none."""
    path = os.path.join(FIXTURES, "dump", "dump_tensor_data", row_name + ".pt")
    t = torch.load(path, weights_only=True).detach().double().abs() if os.path.exists(path) else torch.zeros(0)
    t = t[torch.isfinite(t) & (t > 0)]
    return (float(t.max()), float(t.min())) if t.numel() else (0.0, 1.0)


def kernel_bound(column, dtype, row_name):
    """How far other kernels may move a metric of a `dtype` output: each element by
    kernel_rtol(dtype) of the output's largest magnitude (a sum that cancels is off by ulps of
    its terms), relative errors as much divided by the smallest element."""
    largest, smallest = output_magnitudes(row_name)
    if column in COSINE:
        return kernel_rtol(dtype)
    if column in ABS_ERRORS:
        return kernel_rtol(dtype) * largest
    if column in REL_ERRORS:
        return kernel_rtol(dtype) * largest / smallest
    if column in ULP_ERRORS:
        return kernel_ulps(dtype)
    raise AssertionError(f"unknown column {column}")


def read(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def as_float(s):
    try:
        return float(s)
    except ValueError:
        return None


def test_parity_with_original(tmp_path):
    dump = tmp_path / "dump"
    shutil.copytree(os.path.join(FIXTURES, "dump"), dump)
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "run_ut", "-api_info",
                        str(dump / "dump.json"), "-o", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    ours_result = read(glob.glob(str(out / "accuracy_checking_result_*.csv"))[0])
    ours_details = read(glob.glob(str(out / "accuracy_checking_details_*.csv"))[0])
    orig_result = read(glob.glob(os.path.join(FIXTURES, "original", "accuracy_checking_result_*.csv"))[0])
    orig_details = read(glob.glob(os.path.join(FIXTURES, "original", "accuracy_checking_details_*.csv"))[0])

    assert [row for row in ours_result if row[0] not in DOCUMENTED_FIXES] == \
        [row for row in orig_result if row[0] not in DOCUMENTED_FIXES]
    assert len(orig_result) > 70

    assert ours_details[0] == orig_details[0]
    assert [row[0] for row in ours_details] == [row[0] for row in orig_details]
    header = orig_details[0]
    status, device_dtype = header.index("Status"), header.index("DEVICE Dtype")
    assert set(header[4:status]) == COSINE | ABS_ERRORS | REL_ERRORS | ULP_ERRORS | FRACTIONS
    numeric_rows = 0
    for ours, orig in zip(ours_details[1:], orig_details[1:]):
        if ours[0] in DOCUMENTED_FIXES:
            continue
        assert len(ours) == len(orig), ours[0]
        for col, (a, b) in enumerate(zip(ours, orig)):
            x, y = as_float(a), as_float(b)
            if x is None or y is None or col in (0, status, len(header) - 1):
                assert a == b, f"{ours[0]} {header[col]}: ours {a!r} vs original {b!r}"
            elif math.isnan(x) or math.isnan(y):
                assert math.isnan(x) and math.isnan(y), f"{ours[0]} {header[col]}: {a} vs {b}"
            else:
                numeric_rows += 1
                if abs(x - y) <= 1e-6 * max(abs(x), abs(y)) + 1e-12:
                    continue
                what = f"{ours[0]} {header[col]}: ours {a} vs original {b}"
                dtype = ours[device_dtype]
                assert dtype_name(dtype) in EPS, what  # only float outputs come from float kernels
                if header[col] in FRACTIONS:
                    assert 0 <= x <= 1, what
                else:
                    assert abs(x - y) <= kernel_bound(header[col], dtype, ours[0]), what
    assert numeric_rows > 500
