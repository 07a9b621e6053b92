"""run_ut parity with the ORIGINAL msprobe 1.2.1 on the same real-data dump.

tests/fixtures/run_ut_1.2.1/original/ holds the two CSVs the original wrote for
tests/fixtures/run_ut_1.2.1/dump/ (see the README there). Our run on the same dump must give:
the same result rows (names, order, statuses, messages), the same details rows (names, order,
dtypes, shapes, statuses, messages) and every metric within 1e-6 relative (our sums are more
accurate than numpy's float32 pairwise sums in the last digits). Documented deliberate
differences (docs/compatibility.md) would be listed in DOCUMENTED_FIXES; this dump triggers none.
"""
import csv
import glob
import math
import os
import shutil
import subprocess
import sys

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(TESTS_DIR, "fixtures", "run_ut_1.2.1")
DOCUMENTED_FIXES = {}  # row name -> reason, for rows where we differ on purpose


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
    status = header.index("Status")
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
                assert abs(x - y) <= 1e-6 * max(abs(x), abs(y)) + 1e-12, \
                    f"{ours[0]} {header[col]}: ours {a} vs original {b}"
    assert numeric_rows > 500
