"""MindSpore: a probe that disables itself after an internal error (provoked with the testing aid
MSPROBE_TEST_FAULT, see tests/test_probe_disabled.py) keeps what it recorded before, even entries
still waiting for their deferred reads, says in dump.json from which call on the dump is
incomplete, counts the calls it lost at the end, and leaves training unchanged."""
from ms_helpers import load_json, run_python

SCRIPT = r"""
import numpy as np, mindspore as ms
from mindspore import Tensor, ops
ms.set_context(mode=ms.PYNATIVE_MODE); ms.set_device("CPU")
from msprobe.mindspore import PrecisionDebugger
d = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
x = Tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
for step in range(2):
    d.start()
    y = ops.relu(x) + 1
    z = ops.exp(y)
    w = ops.sigmoid(z) * 2
    d.stop(); d.step()
print("result", repr(float(w.sum().asnumpy())))
"""


def test_disabled_probe_keeps_earlier_entries_and_says_where(tmp_path):
    faulty = tmp_path / "faulty"
    faulty.mkdir()
    r = run_python(SCRIPT, cwd=faulty, env={"MSPROBE_TEST_FAULT": "Functional.exp"})
    clean = run_python(SCRIPT, cwd=tmp_path)
    assert [line for line in r.stdout.splitlines() if line.startswith("result")] == \
        [line for line in clean.stdout.splitlines() if line.startswith("result")]
    doc = load_json(faulty / "dump" / "step0" / "rank" / "dump.json")
    assert list(doc["data"]) == ["Functional.relu.0.forward", "Tensor.__add__.0.forward"]
    assert doc["probe_disabled"]["first_unrecorded_call"] == "Functional.exp.0.forward"
    assert doc["probe_disabled"]["entries_recorded"] == 2
    assert doc["probe_disabled"]["unrecorded_calls"] == 2  # sigmoid, __mul__
    # step 1: relu, __add__, exp, sigmoid, __mul__
    assert "ERROR: 7 calls were not recorded: the probe disabled itself at step 0, " \
           "call Functional.exp.0.forward" in r.stderr
