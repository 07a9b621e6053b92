"""The page beside run_ut's and api_precision_compare's CSVs, opened in headless chromium: the
1.2.1 details CSVs of tests/fixtures, and api_precision_compare writing its page itself."""
import csv
import glob
import os
import subprocess
import sys

import cdp  # tests/report/cdp.py: a broken helper must fail, not skip
import pytest
from conftest import TESTS_DIR

if cdp.chromium_path() is None:
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)

RUN_UT_DETAILS = os.path.join(TESTS_DIR, "fixtures", "run_ut_1.2.1", "original",
                              "accuracy_checking_details_20250101000000.csv")
APC = os.path.join(TESTS_DIR, "fixtures", "api_precision_compare_1.2.1", "parity_model")
VERDICT = {"pass": "pass", "warning": "warning", "error": "error", "skip": "unmatched"}


def _statuses(path, column):
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    counts = dict.fromkeys(VERDICT.values(), 0)
    for r in rows:
        counts[VERDICT[r[column].strip().lower()]] += 1
    return rows, counts


def _counts(b):
    return b.eval("""Object.fromEntries([...document.querySelectorAll('#counts-table tr[data-verdict]')]
        .map(tr => [tr.dataset.verdict, Number(tr.cells[2].textContent)]))""")


@pytest.fixture
def browser():
    with cdp.Browser() as b:
        yield b


def test_run_ut_page(browser, tmp_path):
    out = tmp_path / "run_ut.html"
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "report", RUN_UT_DETAILS, "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    browser.open(out.as_uri())
    rows, expected = _statuses(RUN_UT_DETAILS, "Status")
    assert _counts(browser) == expected
    apis = {r["API Name"].rsplit(".", 3)[0] for r in rows}  # Functional.linear.0
    assert browser.eval("window.msprobeReport.visibleRows") == len(apis)
    errors = browser.eval("[...document.querySelectorAll('#error-list a')].map(a => a.textContent)")
    assert sorted(errors) == sorted({r["API Name"].rsplit(".", 2)[0] for r in rows if r["Status"] == "error"})
    # An API shows the rows of its forward and backward calls.
    browser.click("#tree .row .name")
    assert browser.eval("document.querySelectorAll('#details table.io').length") >= 1
    browser.type_text("#search", "softmax")
    browser.wait_for("window.msprobeReport.matches > 0")
    assert browser.eval("window.msprobeReport.matches") == \
        len({n for r in rows for n in (r["API Name"].rsplit(".", 3)[0], r["API Name"].rsplit(".", 2)[0])
             if "softmax" in n.lower()})
    browser.click("#error-list a")
    browser.keep_screenshot(tmp_path, "report_run_ut.png")
    assert browser.problems() == []


def test_api_precision_compare_writes_its_page(browser, tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "api_precision_compare",
                        "-npu", os.path.join(APC, "npu.csv"), "-gpu", os.path.join(APC, "gpu.csv"),
                        "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    pages = glob.glob(str(out / "api_precision_compare_report_*.html"))
    details = glob.glob(str(out / "api_precision_compare_details_*.csv"))
    assert len(pages) == 1 and len(details) == 1
    assert pages[0].replace("report_", "details_")[:-5] == details[0][:-4]
    browser.open("file://" + pages[0])
    _, expected = _statuses(details[0], "比对结果")
    assert _counts(browser) == expected
    assert "api_precision_compare" in browser.eval("document.getElementById('meta').textContent")
    assert browser.problems() == []
