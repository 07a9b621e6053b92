"""The report of a dump whose probe disabled itself (tests/test_probe_disabled.py provokes it)
shows the warning above everything else, in a real browser (Debian's headless chromium)."""
import subprocess
import sys

import cdp
from conftest import run_python

SCRIPT = r"""
import torch
from msprobe.pytorch import PrecisionDebugger
d = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
x = torch.randn(2, 4)
d.start()
z = torch.exp(torch.relu(x) + 1)
d.stop()
d.step()
"""


def test_incomplete_dump_warning_is_shown(tmp_path):
    run_python(SCRIPT, cwd=tmp_path, env={"MSPROBE_TEST_FAULT": "Torch.exp"})
    out = tmp_path / "report"
    out.mkdir()
    subprocess.run([sys.executable, "-m", "msprobe.cli", "report", str(tmp_path / "dump"), "-o", str(out)],
                   check=True, capture_output=True)
    (page,) = list(out.glob("*.html"))
    with cdp.Browser() as b:
        b.open(page.as_uri())
        b.wait_for("document.getElementById('notes').hidden === false")
        assert b.problems() == []
        text = b.eval("document.getElementById('notes').innerText")
        assert "incomplete: the probe disabled itself" in text and "Torch.exp.0.forward" in text
        # above the summary: the first thing under the header
        assert b.eval("document.getElementById('notes').getBoundingClientRect().top < "
                      "document.getElementById('summary').getBoundingClientRect().top")
        b.keep_screenshot(tmp_path, "incomplete_dump.png")
