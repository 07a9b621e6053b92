"""A probe that turns itself off is loud. An internal error is provoked with the testing aid
MSPROBE_TEST_FAULT=<API> (recording that API's output fails as a fault of ours would): training
goes on unchanged, the step's dump.json says from which call on the dump is incomplete, `msprobe
summary` and the HTML report show it, and the end of the run counts the calls not recorded."""
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import run_python
from dump_files import load_json

SCRIPT = r"""
import sys, torch
from msprobe.pytorch import PrecisionDebugger
torch.manual_seed(0)
d = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
x = torch.randn(2, 4, requires_grad=True)
for step in range(2):
    d.start()
    y = torch.relu(x) + 1          # 2 calls recorded in step 0
    z = torch.exp(y)               # the fault
    w = torch.sigmoid(z) * 2       # 2 calls
    w.sum().backward()             # Tensor.sum (+ autograd's Torch.ones_like)
    d.stop()
    d.step()
print("loss", repr(w.sum().item()), "grad", repr(x.grad.sum().item()))
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    faulty = tmp_path_factory.mktemp("faulty")
    r = run_python(SCRIPT, cwd=faulty, env={"MSPROBE_TEST_FAULT": "Torch.exp"})
    clean = tmp_path_factory.mktemp("clean")
    c = run_python(SCRIPT, cwd=clean)
    return faulty, r, clean, c


def last_line(stdout):
    return [line for line in stdout.splitlines() if line.startswith("loss")]


def test_training_unchanged(runs):
    _, r, _, c = runs
    assert last_line(r.stdout) and last_line(r.stdout) == last_line(c.stdout)


def test_dump_json_says_where_it_stops(runs):
    faulty, _, clean, _ = runs
    doc = load_json(faulty / "dump" / "step0" / "rank" / "dump.json")
    assert list(doc["data"]) == ["Torch.relu.0.forward", "Tensor.__add__.0.forward"]
    note = doc["probe_disabled"]
    assert note["step"] == 0
    assert note["first_unrecorded_call"] == "Torch.exp.0.forward"
    assert note["entries_recorded"] == 2
    # sigmoid, __mul__, sum and autograd's ones_like came after the fault in step 0
    assert note["unrecorded_calls"] == 4
    assert note["reason"] == "RuntimeError: injected fault (MSPROBE_TEST_FAULT) in Torch.exp"
    # nothing after the fault: no later step, and a complete dump has no note
    assert sorted(os.listdir(faulty / "dump")) == ["step0"]
    assert "probe_disabled" not in load_json(clean / "dump" / "step0" / "rank" / "dump.json")


def test_log_reports_once_and_counts_at_the_end(runs):
    _, r, _, _ = runs
    errors = [line for line in r.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 2, r.stderr
    assert "internal error, dumping is disabled and training continues" in errors[0]
    # step 0: 4 calls after the fault; step 1: relu, __add__, exp, sigmoid, __mul__, sum, ones_like
    assert re.search(r"ERROR: 11 calls were not recorded: the probe disabled itself at step 0, "
                     r"call Torch\.exp\.0\.forward \(RuntimeError: ", errors[1]), errors[1]
    _, _, _, c = runs
    assert "ERROR" not in c.stderr


def test_summary_shows_it(runs):
    faulty, _, _, _ = runs
    out = subprocess.run([sys.executable, "-m", "msprobe.cli", "summary", str(faulty / "dump")],
                         capture_output=True, text=True, check=True).stdout
    assert ("step0/rank: incomplete: the probe disabled itself after an internal error at step 0, "
            "call Torch.exp.0.forward, after 2 entries; 4 later calls of the step were not recorded "
            "(RuntimeError: injected fault") in out


def test_report_shows_it(runs, tmp_path):
    faulty, _, clean, _ = runs
    for dump, expect in ((faulty, True), (clean, False)):
        out = tmp_path / dump.name
        out.mkdir()
        subprocess.run([sys.executable, "-m", "msprobe.cli", "report", str(dump / "dump"), "-o", str(out)],
                       capture_output=True, text=True, check=True)
        (page,) = list(out.glob("*.html"))
        data = json.loads(re.search(r'<script id="msprobe-data" type="application/json">(.*?)</script>',
                                    page.read_text(), re.S).group(1))
        if expect:
            assert len(data["notes"]) == 1
            assert data["notes"][0].startswith("step0: incomplete: the probe disabled itself")
        else:
            assert data["notes"] == []


def test_disabled_note_parses_with_our_reader(runs):
    """The reader that run_ut, compare and the report share reads the note and every entry."""
    from msprobe import _core
    faulty, _, _, _ = runs
    rows = _core.summarize_dump(str(faulty / "dump"))
    assert rows[0].entries == 2 and rows[0].incomplete



def test_compare_warns_and_its_report_shows_it(runs, tmp_path):
    faulty, _, clean, _ = runs
    cfg = tmp_path / "compare.json"
    cfg.write_text(json.dumps({"npu_path": str(faulty / "dump/step0/rank/dump.json"),
                               "bench_path": str(clean / "dump/step0/rank/dump.json")}))
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "compare", "-i", str(cfg),
                        "-o", str(out)], capture_output=True, text=True, check=True)
    assert re.search(r"WARNING: .*faulty0/dump/step0/rank/dump\.json: incomplete: the probe disabled "
                     r"itself", r.stdout + r.stderr)
    (page,) = list(out.glob("compare_report_*.html"))
    assert "incomplete: the probe disabled itself" in page.read_text()
