"""The MindSpore device path (msprobe/mindspore/device_stats.py) forced onto CPU tensors:
MindSpore's reductions, read in one batch and handed to the core as numbers, must give the host
path's records. (The whole MindSpore dump matrix also runs through this path: conftest.device_path,
used by test_ms_dump, test_ms_deferred_reads, test_ms_fidelity and test_ms_parity_original.)"""
import json

from dump_files import same_statistic
from ms_helpers import run_python

SCRIPT = r"""
import json, math
import numpy as np, mindspore as ms
from mindspore import Tensor
ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")
from msprobe import _core
from msprobe.mindspore.device_stats import MsDeviceRecorder
from msprobe.mindspore.value_encoding import Deferred, tensor_for_core

rng = np.random.default_rng(0)
r = rng.standard_normal((7, 5)).astype(np.float32)
inf, nan = float("inf"), float("nan")
zoo = {
    "f32": Tensor(r), "f16": Tensor((r * 100).astype(np.float16)),
    "bf16": Tensor(r).astype(ms.bfloat16), "f64": Tensor(r.astype(np.float64)),
    "f64 tiny": Tensor(r.astype(np.float64) * 1e-200), "bool": Tensor(r > 0),
    "u8": Tensor(np.arange(250, dtype=np.uint8)), "i16": Tensor(np.arange(-300, 9, dtype=np.int16)),
    "i32": Tensor(np.array([2**31 - 1, -2**31, 5], np.int32)),
    "i64": Tensor(np.array([2**53 + 1, -5, 7], np.int64)),
    "0-dim f32": Tensor(np.float32(1.25)), "0-dim i64": Tensor(np.int64(-12)),
    "0-dim bool": Tensor(np.bool_(True)), "nan and inf": Tensor(np.array([1, inf, -2, nan], np.float32)),
    "inf only": Tensor(np.array([inf, -inf], np.float32)), "empty": Tensor(np.zeros((0, 3), np.float32)),
    "c64": Tensor(np.array([3 + 4j, 1j], np.complex64)),
}
rec = MsDeviceRecorder(copy_tensors=False, accelerator=False)
ds = [Deferred(t) for t in zoo.values()]
assert rec.prepare(ds, False) == len(ds)
out = {}
for (name, t), d in zip(zoo.items(), ds):
    got = rec.resolve(d)
    if isinstance(got, tuple):
        numbers, dtype, shape = got
        dev = _core.external_tensor_stats(dtype, list(shape), numbers)
        if dev["rescale"] is not None:
            two = np.frombuffer(rec.rescaled(d, dev["rescale"]), np.float64)
            dev = _core.external_tensor_stats(dtype, list(shape), numbers, tuple(two))
        dev = {k: v for k, v in dev.items() if k in ("Max", "Min", "Mean", "Norm")}
        via = "device"
    else:
        dev, via = _core.tensor_stats(got), "host"
    host = _core.tensor_stats(tensor_for_core(t))
    host = {k: v for k, v in host.items() if k in ("Max", "Min", "Mean", "Norm")}
    out[name] = {"via": via, "device": dev, "host": host, "dtype": str(t.dtype)}
assert rec.fallbacks == 0, rec.fallbacks
print("RESULT", json.dumps(out))
"""


def test_device_numbers_give_the_host_record(tmp_path):
    r = run_python(SCRIPT, cwd=tmp_path)
    line = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")][0]
    results = json.loads(line[len("RESULT "):])  # json reads NaN and Infinity
    assert len(results) == 17
    for name, res in results.items():
        assert res["via"] == ("host" if name == "c64" else "device"), name
        wide = res["dtype"] == "Float64"
        for key, h in res["host"].items():
            d = res["device"][key]
            rel = (1e-12 if wide else 2e-6) if key in ("Mean", "Norm") else 0
            assert same_statistic(d, h, rel), (name, key, d, h)


def test_forced_dump_goes_through_the_device_path(tmp_path):
    r = run_python(r"""
import numpy as np, mindspore as ms, json
from mindspore import Tensor, nn, ops
ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")
from msprobe.mindspore import PrecisionDebugger
net = nn.Dense(4, 3)
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="mix")
x = Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
dbg.start(net)
y = ops.relu(net(x))
dbg.stop(); dbg.step()
print("RECORDED", dbg.device_recorder.recorded - dbg.device_recorder.fallbacks)
d = json.load(open("dump/step0/rank/dump.json"))["data"]
print("MAX", d["Functional.relu.0.forward"]["input_args"][0]["Max"], float(net(x).asnumpy().max()))
""", cwd=tmp_path, env={"MSPROBE_FORCE_DEVICE_PATH": "1"})
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines() if " " in line)
    assert int(lines["RECORDED"]) >= 4
    got, want = lines["MAX"].split()
    assert float(got) == float(want)
