"""Nothing lost: after kill -9 the dump.json on disk is parseable and holds every entry completed
at least a second before the kill; write failures disable the probe, not training."""
import os
import re
import sys

from conftest import TESTS_DIR, load_json, run_python
from crash_checks import assert_dump_holds_calls, kill_9_after_progress


def test_kill_9_keeps_parseable_dump(tmp_path):
    progress = tmp_path / "progress.txt"
    env = dict(os.environ, PYTHONPATH=TESTS_DIR)
    must_have = kill_9_after_progress([sys.executable, f"{TESTS_DIR}/scripts/kill_target.py", str(progress)],
                                      progress, 60, tmp_path, env, timeout=120)
    assert len(must_have) >= 60
    assert_dump_holds_calls(tmp_path / "dump" / "step0" / "rank", "Functional.linear", must_have)


FULL_DISK = r"""
import resource, signal, sys, torch
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)           # writes past the limit fail with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))  # per file: tensors of 360 kB fail
from msprobe.pytorch import PrecisionDebugger
dbg = PrecisionDebugger(task="tensor", dump_path="./dump", level="L1")
w = torch.randn(300, 300, requires_grad=True)
losses = []
for step in range(6):
    dbg.start()
    loss = torch.nn.functional.linear(torch.randn(300, 300), w).pow(2).mean()
    loss.backward()
    losses.append(loss.item())
    dbg.stop()
    dbg.step()
print("TRAINING-FINISHED", len(losses))
"""


def test_full_disk_disables_probe_and_training_continues(tmp_path):
    r = run_python(FULL_DISK, cwd=tmp_path)
    assert "TRAINING-FINISHED 6" in r.stdout
    errors = [line for line in r.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 2, r.stderr  # the failure, then the count of calls lost at the end
    assert "File too large" in errors[0] and "disabled" in errors[0]
    assert re.search(r"ERROR: [1-9][0-9]* calls were not recorded after the dump was disabled", errors[1])
    dump = load_json(tmp_path / "dump" / "step0" / "rank" / "dump.json")   # still parseable
    assert dump["task"] == "tensor"


def test_unwritable_dump_path_gives_one_clear_error(tmp_path):
    (tmp_path / "blocker").write_text("a file where a directory is needed")
    code = ("import torch\nfrom msprobe.pytorch import PrecisionDebugger\n"
            "d = PrecisionDebugger(task='statistics', dump_path='./blocker/dump', level='L1')\n"
            "for _ in range(3):\n"
            "    d.start(); torch.relu(torch.randn(3)); d.stop(); d.step()\n"
            "print('TRAINING-FINISHED')\n")
    r = run_python(code, cwd=tmp_path)
    assert "TRAINING-FINISHED" in r.stdout
    errors = [line for line in r.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 2 and "blocker" in errors[0], r.stderr
    # every step's relu (torch.randn is not wrapped)
    assert "ERROR: 3 calls were not recorded after the dump was disabled" in errors[1], errors[1]
    assert "Traceback" not in r.stderr
