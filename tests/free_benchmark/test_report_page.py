"""`msprobe report DUMP_PATH` of a free_benchmark run, opened in headless chromium: the flagged
APIs ranked as free_benchmark_summary.json ranks them, each with its numbers and stack."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "report"))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cdp  # noqa: E402  tests/report/cdp.py
from conftest import run_python  # noqa: E402

if cdp.chromium_path() is None:
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))


def test_free_benchmark_page(tmp_path):
    cfg = {"task": "free_benchmark", "dump_path": "./dump", "level": "L1",
           "free_benchmark": {"pert_mode": "change_value"}}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    run_python(os.path.join(HERE, "fb_model.py"), "config.json", cwd=str(tmp_path))
    summary = json.loads((tmp_path / "dump" / "free_benchmark_summary.json").read_text())
    calls = [a["worst_call"] for a in summary["apis"]]
    assert len(calls) >= 3
    out = tmp_path / "fb.html"
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "report", str(tmp_path / "dump"), "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    with cdp.Browser() as b:
        b.open(out.as_uri())
        assert "free_benchmark (change_value, check)" in b.eval("document.getElementById('meta').textContent")
        errors = b.eval("[...document.querySelectorAll('#error-list a')].map(a => a.textContent)")
        assert sorted(errors) == sorted(calls)
        b.click("#error-list a")
        b.wait_for("document.querySelector('#details').textContent.includes('fb_model.py')")
        details = b.eval("document.querySelector('#details').textContent")
        assert "times" in details
