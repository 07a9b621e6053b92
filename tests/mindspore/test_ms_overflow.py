"""overflow_check for MindSpore.

PyNative (L0/L1/mix): overflow_net.py (an fp16 matmul past 65504, the log of a negative, a
division by zero, an input holding inf) dumped with our package gives the entries, tensor records,
.npy files, stack keys and construct trees of the ORIGINAL 1.2.1's golden dumps
(tests/fixtures/original_1.2.1_overflow_mindspore, cases tests/overflow/ms_cases.json) and the
same training. Primitives and Jit functions are left out, as 1.2.1 does. Static graph O2: the
kernel overflow configuration is 1.2.1's (test_ms_kernel_dump.py compares the files); on a CPU only
the kernels holding inf/NaN are kept. Beyond 1.2.1: culprits first in overflow_summary.json and
the first overflow logged with its source line."""
import json
import math
import os

import numpy as np
import pytest
from dump_files import step_dirs
from ms_helpers import HERE, load_json, run_python
from original_dumps import (
    assert_same_construct_and_stack,
    case_runs,
    line_of,
    matching_tensor_records,
    original_tensor_files,
)
from tolerances import close, same_stat_as_original

TESTS = os.path.dirname(HERE)
NET = os.path.join(HERE, "overflow_net.py")
FIXTURES = os.path.join(TESTS, "fixtures", "original_1.2.1_overflow_mindspore")
with open(os.path.join(TESTS, "overflow", "ms_cases.json")) as _f:
    CASES = json.load(_f)
HALF = ("Float16", "BFloat16")


def net_line(text):
    return line_of(NET, text)


def same_stat(key, ours, orig, record):
    if isinstance(ours, float) and math.isnan(ours) and key in ("Max", "Min") and \
            isinstance(record["Mean"], float) and math.isnan(record["Mean"]):
        # The tensor holds NaN: 1.2.1's mint.max/min skip it on a CPU; we report NaN
        # (docs/compatibility.md).
        return True
    if record["dtype"] in HALF and key in ("Mean", "Norm") and isinstance(orig, float) and math.isinf(orig):
        # 1.2.1 reduces fp16/bf16 in that dtype: its Norm overflows to inf past 65504; we
        # accumulate in double (docs/compatibility.md).
        return True
    # Within 1.2.1's other differences of computation, or the kernel tolerance (tests/tolerances.py).
    return same_stat_as_original(ours, orig, record, key)


def lines(stdout):
    return [ln for ln in stdout.splitlines() if ln.startswith(("step ", "params ", "values "))]


def split_lines(lines):
    """(line heads, losses, the digest lines) of lines(stdout)."""
    heads = [ln.rsplit(" ", 1)[0] for ln in lines]
    losses = [float(ln.rsplit(" ", 1)[1]) for ln in lines if ln.startswith("step ")]
    return heads, losses, [ln for ln in lines if not ln.startswith("step ")]


@pytest.fixture(scope="module")
def run_of(tmp_path_factory):
    """run_of(case name) -> (work folder, CompletedProcess): each case runs once per module."""
    return case_runs(tmp_path_factory, CASES, NET, run_python)


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_dump_and_training_as_original(run_of, name, tmp_path):
    """The training: 1.2.1's losses within the kernel tolerance (tests/tolerances.py: the goldens
    were made on another CPU), and its final parameters. Their digests hold only on the CPU they
    were made on: where ours differ, the parameter values (NaN as one value) must equal those of a
    run without any probe here, as 1.2.1's equal one there."""
    work, r = run_of(name)
    orig_root = os.path.join(FIXTURES, name)
    with open(os.path.join(orig_root, "stdout.txt")) as f:
        golden_heads, golden_losses, golden_digests = split_lines(f.read().splitlines())
    heads, losses, digests = split_lines(lines(r.stdout))
    assert heads == golden_heads
    assert all(close(a, b, "float32") for a, b in zip(losses, golden_losses)), (losses, golden_losses)
    if digests != golden_digests:
        plain = run_python(NET, "--no-probe", *CASES[name]["args"], cwd=tmp_path)
        values = [ln for ln in digests if ln.startswith("values ")]
        assert values and values == [ln for ln in lines(plain.stdout) if ln.startswith("values ")]
    ours_root = work / "dump"
    steps = step_dirs(orig_root)
    assert step_dirs(ours_root) == steps
    for step in steps:
        ours_dir, orig_dir = ours_root / step / "rank", os.path.join(orig_root, step, "rank")
        ours, orig = load_json(ours_dir / "dump.json"), load_json(os.path.join(orig_dir, "dump.json"))
        assert ours["dump_data_dir"] == orig["dump_data_dir"].replace("{CWD}", str(work))
        for key in ("task", "level", "framework"):
            assert ours[key] == orig[key]
        assert set(ours["data"]) == set(orig["data"])
        for entry, path, u, t in matching_tensor_records(ours["data"], orig["data"]):
            for key in ("dtype", "shape", "data_name"):
                assert u[key] == t[key], (entry, path, key)
            for key in ("Max", "Min", "Mean", "Norm"):
                assert same_stat(key, u[key], t[key], t), (entry, path, key, u[key], t[key])
        assert_same_construct_and_stack(ours_dir, orig_dir, stack_keys=list)
        data_dir = ours_dir / "dump_tensor_data"
        assert sorted(os.listdir(data_dir)) == original_tensor_files(orig_dir, data_dir)


def test_training_values_unchanged_by_the_probe(run_of, tmp_path):
    """Same losses and parameter values as without msprobe (NaN counted as one value: MindSpore's
    backward hooks may flip a NaN gradient's sign bit, with 1.2.1 as with us)."""
    _, probe = run_of("L1_default")
    plain = run_python(NET, "--no-probe", *CASES["L1_default"]["args"], cwd=tmp_path)
    strip = [ln for ln in lines(plain.stdout) if not ln.startswith("params ")]
    assert [ln for ln in lines(probe.stdout) if not ln.startswith("params ")] == strip
    assert any(ln.startswith("values ") for ln in strip)


def test_saved_npy_hold_the_overflow(run_of):
    work, _ = run_of("L1_all")
    data = work / "dump" / "step0" / "rank" / "dump_tensor_data"
    out = np.load(data / "Functional.matmul.0.forward.output.0.npy", allow_pickle=False)
    a = np.load(data / "Functional.matmul.0.forward.input.0.npy", allow_pickle=False)
    assert out.dtype == np.float16 and np.isinf(out).any()
    assert np.isfinite(a).all()
    assert np.isnan(np.load(data / "Functional.log.0.forward.output.0.npy", allow_pickle=False)).all()


def test_summary_and_log_name_the_culprits_first(run_of):
    work, r = run_of("L1_all")
    s = load_json(work / "dump" / "step0" / "rank" / "overflow_summary.json")
    assert s["framework"] == "mindspore" and s["level"] == "L1"
    assert s["first"]["entry"] == "Functional.clamp.0.forward" and s["first"]["kind"] == "passed_on"
    fc = s["first_culprit"]
    assert fc["entry"] == "Functional.matmul.0.forward"
    assert fc["source"]["file"] == NET and fc["source"]["line"] == net_line("g = ops.matmul(a, a.T)")
    assert fc["source"]["function"] == "construct"
    apis = [(a["api"], a["direction"], a["kind"]) for a in s["apis"]]
    assert apis[:3] == [("Functional.matmul", "forward", "culprit"), ("Functional.log", "forward", "culprit"),
                        ("Tensor.__truediv__", "forward", "culprit")]
    kinds = [k for _, _, k in apis]
    assert kinds == sorted(kinds, key=lambda k: k != "culprit")
    first = [ln for ln in r.stderr.splitlines() if "first inf/NaN" in ln]
    assert len(first) == 1
    assert first[0].startswith("[msprobe] WARNING: overflow_check: first inf/NaN at Functional.clamp.0.forward "
                               "(step 0, not distributed): it received inf/NaN")
    assert f"overflow_net.py:{net_line('s = ops.clamp(aux')} in construct: s = ops.clamp(aux, max=1.0)" in first[0]


def test_limit_ends_the_dump(run_of):
    work, r = run_of("L1_default")
    s = load_json(work / "dump" / "step0" / "rank" / "overflow_summary.json")
    assert s["limit_reached"] and s["overflows_in_run"] == 1 and s["apis"][0]["api"] == "Functional.clamp"
    assert "Reached the preset overflow times, current overflow times: 1." in r.stderr
    assert "msprobe ends successfully" in r.stderr


PRIMITIVE_AND_JIT = r"""
import json, numpy as np, mindspore as ms
from mindspore import Tensor, nn, ops
ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")
from msprobe.mindspore import PrecisionDebugger

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.log = ops.Log()          # a Primitive attribute: not checked by overflow_check

    def construct(self, x):
        return self.log(x - 10.0)

@ms.jit
def jitted(x):
    return ops.log(x - 10.0)          # compiled: not checked either

json.dump({"task": "overflow_check", "dump_path": "./dump", "level": "L1",
           "overflow_check": {"overflow_nums": -1}}, open("config.json", "w"))
dbg = PrecisionDebugger(config_path="config.json")
net = Net()
x = Tensor(np.arange(4, dtype=np.float32))
dbg.start(net)
a = net(x)
b = jitted(x)
c = ops.add(a, b)                   # receives NaN: the only entry
dbg.stop()
dbg.step()
print("RESULT", np.isnan(c.asnumpy()).all())
"""


def test_primitives_and_jit_are_not_checked(tmp_path):
    (tmp_path / "net.py").write_text(PRIMITIVE_AND_JIT)  # mindspore.jit compiles from a file
    r = run_python(str(tmp_path / "net.py"), cwd=tmp_path)
    assert "RESULT True" in r.stdout
    d = tmp_path / "dump" / "step0" / "rank"
    assert list(load_json(d / "dump.json")["data"]) == ["Functional.add.0.forward"]
    # x - 10.0 before the Primitive is an API (finite): only its stack; nothing of the Primitive
    # and the jit function. 1.2.1 does not record them at all in this task.
    assert list(load_json(d / "stack.json")) == ["Tensor.__sub__.0.forward", "Functional.add.0.forward"]
    s = load_json(d / "overflow_summary.json")
    assert s["culprits_in_step"] == 0 and s["first"]["kind"] == "passed_on"


STATIC_GRAPH = r"""
import os, sys, numpy as np, mindspore as ms
from mindspore import nn, ops
ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU", jit_config={"jit_level": "O2"})
from msprobe.mindspore import PrecisionDebugger

class Net(nn.Cell):
    def construct(self, x):
        return ops.log(x - 10.0) * 2

dbg = PrecisionDebugger(config_path="./config.json")
dbg.start()
net = Net()
x = ms.Tensor(np.arange(8, dtype=np.float32))
for _ in range(2):
    out = net(x)
    dbg.step()
print("RESULT", np.isnan(out.asnumpy()).all())
"""


def test_static_graph_o2_keeps_the_overflowing_kernels(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(
        {"task": "overflow_check", "dump_path": "./dump", "level": "L2", "step": [0],
         "overflow_check": {"overflow_nums": 1, "check_mode": "all"}}))
    (tmp_path / "net.py").write_text(STATIC_GRAPH)
    r = run_python(str(tmp_path / "net.py"), cwd=tmp_path)
    assert "RESULT True" in r.stdout
    assert "Step would change to all in this task." in r.stderr
    cfg = load_json(tmp_path / "dump" / "kernel_graph_overflow_check.json")["common_dump_settings"]
    assert cfg["saved_data"] == "full" and cfg["op_debug_mode"] == 3 and cfg["iteration"] == "all"
    kept = {}
    for dirpath, _, files in os.walk(tmp_path / "dump" / "rank_0" / "Net"):
        for f in files:
            kept.setdefault(os.path.basename(dirpath), set()).add(f.split(".")[0])
    # Both iterations: Log made NaN from finite values and Mul passed it on; Sub and the
    # parameter x hold no inf/NaN and are removed.
    assert kept == {"0": {"Log", "Mul"}, "1": {"Log", "Mul"}}


ROUTING = r"""
import json
import mindspore as ms
from msprobe.mindspore import PrecisionDebugger
def show(mode, jit_level, level, lst=None):
    ms.set_context(mode=mode, device_target="CPU", jit_config={"jit_level": jit_level})
    sec = {"overflow_nums": 1} if lst is None else {"list": lst}
    json.dump({"task": "overflow_check", "dump_path": "./dump", "level": level, "overflow_check": sec},
              open("c.json", "w"))
    try:
        PrecisionDebugger(config_path="c.json")
        print("NO-ERROR")
    except Exception as e:
        print("ERR", str(e).splitlines()[0])
show(ms.GRAPH_MODE, "O0", "L1")
show(ms.GRAPH_MODE, "O2", "L0")
show(ms.GRAPH_MODE, "O0", "L2")
show(ms.PYNATIVE_MODE, "O0", "L2")
"""


def test_routing_errors_as_original(tmp_path):
    out = [ln for ln in run_python(ROUTING, cwd=tmp_path).stdout.splitlines() if ln.startswith(("ERR", "NO-"))]
    assert out == ["ERR Overflow check is not supported in graph_kbyk mode when level is api.",
                   "ERR Overflow check is not supported in graph_ge mode when level is cell.",
                   "ERR Overflow check is not supported in graph_kbyk mode when level is kernel.",
                   "ERR Overflow check is not supported in pynative mode when level is kernel."]


def test_bad_overflow_nums_gives_one_line(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps(
        {"task": "overflow_check", "dump_path": "./dump", "level": "L1", "overflow_check": {"overflow_nums": 0}}))
    code = ("from msprobe.mindspore import PrecisionDebugger\n"
            "try:\n    PrecisionDebugger(config_path='c.json')\n"
            "except Exception as e:\n    print('ERR', str(e))\n")
    out = run_python(code, cwd=tmp_path).stdout.strip()
    assert out == 'ERR c.json: "overflow_check.overflow_nums" must be -1 (no limit) or an integer > 0, got 0'
