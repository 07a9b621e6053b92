"""MindSpore dumps with real MindSpore (PyNative, CPU): levels, tasks, summary modes, bf16, step
selection, MsprobeStep with Model.train, Jit capture, in-place APIs, and the documented errors.
Each case runs in a fresh interpreter: the debugger is a process-wide singleton."""
import json
import os

import numpy as np
import pytest
from ms_helpers import load_dump, load_json, rank_dir, run_python, tensors

# Every test runs on the host path and on the device path forced onto CPU tensors.
pytestmark = pytest.mark.usefixtures("device_path")

PRELUDE = r"""
import numpy as np, mindspore as ms
from mindspore import Tensor, Parameter, nn, ops, mint
ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")
from msprobe.mindspore import PrecisionDebugger

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.fc = nn.Dense(4, 3, weight_init=Tensor(rng.standard_normal((3, 4)).astype(np.float32)),
                           bias_init=Tensor(rng.standard_normal(3).astype(np.float32)))
        self.act = nn.ReLU()
        self.mul = ops.Mul()
    def construct(self, x):
        y = self.act(self.fc(x))
        y = self.mul(y, 3.0)
        return mint.sum(ops.tanh(y))

net = Net()
grad_fn = ms.value_and_grad(net, None, net.trainable_params())
x = Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
"""


def run(tmp_path, body, **kw):
    return run_python(PRELUDE + body, cwd=tmp_path, **kw)


def test_l1_statistics_names_prefixes_and_layout(tmp_path):
    r = run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
for _ in range(2):
    dbg.start(); loss, g = grad_fn(x); dbg.stop(); dbg.step()
import os, msprobe
d = os.path.dirname(os.path.abspath(msprobe.__file__))
print("done", d + "|" + os.path.realpath(d))
""")
    assert "done" in r.stdout
    # the package's own folder (the checkout itself may be a folder named msprobe)
    package_dirs = r.stdout.split("done ", 1)[1].split("\n", 1)[0].split("|")
    for step in (0, 1):
        dump, stack, construct = load_dump(tmp_path / "dump", step)
        assert dump["task"] == "statistics" and dump["level"] == "L1"
        assert dump["framework"] == "mindspore" and dump["dump_data_dir"] is None
        names = list(dump["data"])
        assert "Functional.tanh.0.forward" in names and "Functional.tanh.0.backward" in names
        assert "Mint.sum.0.forward" in names and "Mint.sum.0.backward" in names
        # start() without a model: no Primitive capture; L1 has no construct tree.
        assert not any(n.startswith("Primitive.") for n in names)
        assert construct == {}
        assert set(stack) == {n for n in names if n.endswith(".forward")}
        t = dump["data"]["Functional.tanh.0.forward"]["input_args"][0]
        assert t["type"] == "mindspore.Tensor" and t["dtype"] == "Float32" and t["shape"] == [2, 3]
        assert "requires_grad" not in t and "data_name" not in t
        assert not os.path.exists(os.path.join(rank_dir(tmp_path / "dump", step), "dump_tensor_data"))
        # the stack points at this script, not at msprobe
        frames = stack["Mint.sum.0.forward"]
        assert frames and not any(d in frame for d in package_dirs for frame in frames), frames


def test_l1_with_model_captures_primitives(tmp_path):
    run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
dbg.start(net); grad_fn(x); dbg.stop(); dbg.step()
""")
    dump, _, _ = load_dump(tmp_path / "dump")
    data = dump["data"]
    fwd = data["Primitive.mul.Mul.0.forward"]
    assert fwd["input_args"][1] == {"type": "float", "value": 3.0}
    assert fwd["output"][0]["shape"] == [2, 3]
    bwd = data["Primitive.mul.Mul.0.backward"]
    assert bwd["input"][0]["shape"] == [2, 3] and bwd["output"][0]["shape"] == [2, 3]
    assert "Primitive.matmul.MatMul.0.forward" in data  # nn.Dense's own primitive attribute


def test_l0_cells_parameters_and_gradients(tmp_path):
    run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L0")
dbg.start(net); loss, grads = grad_fn(x); dbg.stop(); dbg.step()
np.save("grad_w.npy", grads[0].asnumpy())
""")
    dump, stack, construct = load_dump(tmp_path / "dump")
    data = dump["data"]
    assert set(data) == {"Cell.fc.Dense.forward.0", "Cell.act.ReLU.forward.0",
                         "Cell.fc.Dense.backward.0", "Cell.act.ReLU.backward.0",
                         "Cell.fc.Dense.parameters_grad"}
    fwd = data["Cell.fc.Dense.forward.0"]
    assert list(fwd) == ["input_args", "input_kwargs", "output", "parameters"]
    assert fwd["input_kwargs"] == {} and set(fwd["parameters"]) == {"weight", "bias"}
    grad = data["Cell.fc.Dense.parameters_grad"]["weight"][0]
    g = np.load(tmp_path / "grad_w.npy")
    assert grad["shape"] == [3, 4] and np.isclose(grad["Norm"], np.linalg.norm(g), rtol=1e-6)
    assert construct == {"Cell.fc.Dense.forward.0": None, "Cell.act.ReLU.forward.0": None,
                         "Cell.act.ReLU.backward.0": None, "Cell.fc.Dense.backward.0": None}
    assert set(stack) == {"Cell.fc.Dense.forward.0", "Cell.act.ReLU.forward.0"}


def test_mix_tensor_files_are_plain_npy(tmp_path):
    run(tmp_path, """
dbg = PrecisionDebugger(task="tensor", dump_path="./dump", level="mix")
dbg.start(net); grad_fn(x); dbg.stop(); dbg.step()
""")
    d = rank_dir(tmp_path / "dump")
    dump = load_json(os.path.join(d, "dump.json"))
    assert dump["dump_data_dir"] == os.path.join(d, "dump_tensor_data")
    files = set(os.listdir(os.path.join(d, "dump_tensor_data")))
    named = {t["data_name"] for v in dump["data"].values() for _, t in tensors(v)}
    assert named == files
    assert "Cell.fc.Dense.forward.0.parameters.weight.npy" in files
    assert "Cell.fc.Dense.parameters_grad.weight.npy" in files
    assert "Functional.tanh.0.backward.output.0.npy" in files
    w = np.load(os.path.join(d, "dump_tensor_data", "Cell.fc.Dense.forward.0.parameters.weight.npy"),
                allow_pickle=False)
    expected = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    assert w.dtype == np.float32 and np.array_equal(w, expected)
    construct = load_json(os.path.join(d, "construct.json"))
    assert construct["Primitive.matmul.MatMul.0.forward"] == "Cell.fc.Dense.forward.0"
    assert construct["Functional.tanh.0.forward"] is None


def test_bf16_saved_as_fp32_with_dtype_recorded_and_md5(tmp_path):
    run(tmp_path, """
dbg = PrecisionDebugger(task="tensor", dump_path="./dump", level="L1")
b = Tensor(np.array([[1.5, -2.25], [3.0, 0.125]], np.float32)).astype(ms.bfloat16)
dbg.start(); y = ops.reshape(b, (4,)); dbg.stop(); dbg.step()
""")
    d = rank_dir(tmp_path / "dump")
    rec = load_json(os.path.join(d, "dump.json"))["data"]["Functional.reshape.0.forward"]
    t = rec["input_args"][0]
    assert rec["output"][0]["dtype"] == "BFloat16" and rec["output"][0]["shape"] == [4]
    assert t["dtype"] == "BFloat16" and t["Max"] == 3.0 and t["Min"] == -2.25
    a = np.load(os.path.join(d, "dump_tensor_data", t["data_name"]), allow_pickle=False)
    assert a.dtype == np.float32 and a.tolist() == [[1.5, -2.25], [3.0, 0.125]]


def test_md5_is_crc32_of_the_bytes(tmp_path):
    cfg = tmp_path / "md5.json"
    cfg.write_text(json.dumps({"task": "statistics", "dump_path": "./dump", "level": "L1",
                               "statistics": {"summary_mode": "md5"}}))
    r = run(tmp_path, """
import zlib
dbg = PrecisionDebugger(config_path="md5.json")
a = Tensor(np.arange(6, dtype=np.float32))
b = Tensor(np.array([1.5, 2.5], np.float32)).astype(ms.bfloat16)
dbg.start(); ops.abs(a); ops.reshape(b, (2,)); dbg.stop(); dbg.step()
print(f"{zlib.crc32(a.asnumpy().tobytes()):08x}", f"{zlib.crc32(b.astype(ms.float32).asnumpy().tobytes()):08x}")
""")
    crc_a, crc_b = r.stdout.split()[-2:]
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert data["Functional.abs.0.forward"]["input_args"][0]["md5"] == crc_a
    assert data["Functional.reshape.0.forward"]["input_args"][0]["md5"] == crc_b


def test_complex_norm_is_the_norm_of_magnitudes(tmp_path):
    run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
c = Tensor(np.array([3 + 4j, -1j, -6 + 8j], np.complex64))
dbg.start(); ops.abs(c); dbg.stop(); dbg.step()
""")
    rec = load_dump(tmp_path / "dump")[0]["data"]["Functional.abs.0.forward"]["input_args"][0]
    assert rec["dtype"] == "Complex64"
    assert (rec["Max"], rec["Min"]) == (10.0, 1.0)
    assert abs(rec["Norm"] - np.sqrt(126.0)) < 1e-5  # 1.2.1: numpy.linalg.norm(abs(z))


def test_step_selection_and_end(tmp_path):
    r = run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1", step=[1])
for _ in range(4):
    dbg.start(); grad_fn(x); dbg.stop(); dbg.step()
print("trained")
""")
    assert "trained" in r.stdout
    assert sorted(os.listdir(tmp_path / "dump")) == ["step1"]
    assert "msprobe ends successfully" in r.stderr


def test_msprobe_step_with_model_train(tmp_path):
    r = run(tmp_path, """
import mindspore.dataset as ds
from mindspore.train import Model
from msprobe.mindspore.common.utils import MsprobeStep
rng = np.random.default_rng(1)
data = [(rng.standard_normal(4).astype(np.float32), rng.standard_normal(3).astype(np.float32)) for _ in range(6)]
dataset = ds.GeneratorDataset(data, ["x", "y"], shuffle=False).batch(2)
class Body(nn.Cell):
    def __init__(self):
        super().__init__(); self.fc = nn.Dense(4, 3); self.act = nn.Tanh()
    def construct(self, x): return self.act(self.fc(x))
body = Body()
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="mix")
dbg.start(body)
model = Model(body, loss_fn=nn.MSELoss(), optimizer=nn.SGD(body.trainable_params(), 0.1))
model.train(1, dataset, callbacks=[MsprobeStep(dbg)], dataset_sink_mode=False)
print("trained")
""")
    assert "trained" in r.stdout
    assert sorted(os.listdir(tmp_path / "dump")) == ["step0", "step1", "step2"]
    for step in range(3):
        data = load_dump(tmp_path / "dump", step)[0]["data"]
        assert "Cell.fc.Dense.forward.0" in data and "Cell.fc.Dense.backward.0" in data
        assert "Cell.fc.Dense.parameters_grad" in data


def test_jit_function_is_one_api(tmp_path):
    script = tmp_path / "jit_script.py"
    script.write_text(PRELUDE + """
@ms.jit
def scaled(a, b):
    return ops.tanh(a) * b
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
dbg.start(); y = scaled(x, x); z = ops.abs(y); dbg.stop(); dbg.step()
assert np.allclose(y.asnumpy(), np.tanh(x.asnumpy()) * x.asnumpy())
""")
    run_python(str(script), cwd=tmp_path)
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert list(data) == ["Jit.scaled.0.forward", "Functional.abs.0.forward"]
    jit = data["Jit.scaled.0.forward"]
    assert [t["shape"] for t in jit["input_args"]] == [[2, 4], [2, 4]]
    assert jit["output"][0]["shape"] == [2, 4]


def test_jit_backward_and_jit_cell(tmp_path):
    script = tmp_path / "jit_grad.py"  # jit needs its source in a file
    script.write_text(PRELUDE + """
@ms.jit
def scaled(a, b):
    return ops.tanh(a) * b
class Twice(nn.Cell):
    def __init__(self):
        super().__init__(); self.d = nn.Dense(4, 4, weight_init="ones", bias_init="zeros")
    @ms.jit
    def construct(self, v): return self.d(v) * 2
cell = Twice()
def f(a, b):
    return cell(scaled(a, b)).sum()
g = ms.value_and_grad(f, (0, 1), cell.trainable_params())
y = x + 1
plain = g(x, y)
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
dbg.start(cell); hooked = g(x, y); dbg.stop(); dbg.step()
flat = lambda r: [r[0]] + list(r[1][0]) + list(r[1][1])
print(all(np.array_equal(p.asnumpy(), h.asnumpy()) for p, h in zip(flat(plain), flat(hooked))))
""")
    r = run_python(str(script), cwd=tmp_path)
    assert r.stdout.split()[-1] == "True"  # loss and every gradient unchanged by the probe
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert list(data) == ["Jit.scaled.0.forward", "Jit.Twice.0.forward", "Tensor.sum.0.forward",
                          "Tensor.sum.0.backward", "Jit.Twice.0.backward", "Jit.scaled.0.backward"]
    assert data["Jit.Twice.0.forward"]["input_args"][0] is None  # the Cell itself, as in 1.2.1
    scaled_bw = data["Jit.scaled.0.backward"]
    assert [t["shape"] for t in scaled_bw["input"]] == [[2, 4]]
    assert [t["shape"] for t in scaled_bw["output"]] == [[2, 4], [2, 4]]
    # d(sum(2 * W v))/dv with W = ones: every element of the gradient reaching scaled's output is 8
    assert scaled_bw["input"][0]["Max"] == scaled_bw["input"][0]["Min"] == 8.0


def test_pijit_function_runs_eagerly_while_dumping(tmp_path):
    script = tmp_path / "pijit.py"
    script.write_text(PRELUDE + """
@ms.jit(capture_mode="bytecode")
def f(a):
    return ops.tanh(a) * 2 + ops.abs(a)
before = f(x)
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
dbg.start(); during = f(x); dbg.stop(); dbg.step()
after = f(x)
print(np.array_equal(before.asnumpy(), during.asnumpy()) and
      np.array_equal(before.asnumpy(), after.asnumpy()))
""")
    r = run_python(str(script), cwd=tmp_path)
    assert r.stdout.split()[-1] == "True"
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert list(data) == ["Functional.tanh.0.forward", "Tensor.__mul__.0.forward",
                          "Functional.abs.0.forward", "Tensor.__add__.0.forward"]


def test_inplace_apis_keep_their_semantics(tmp_path):
    r = run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
def f(a):
    b = a * 2
    b.add_(1)
    b += a
    return (b * w).sum()
def run():
    y = Tensor(np.zeros(3, np.float32)); y.add_(5); y[0] = 7
    return y.asnumpy().tolist(), float(f(Tensor(np.ones(3, np.float32))).asnumpy()), \
        ms.grad(f, 0)(Tensor(np.ones(3, np.float32))).asnumpy().tolist()
plain = run()
dbg.start(); hooked = run(); dbg.stop(); dbg.step()
print(plain == hooked, plain)
""")
    # (MindSpore 2.10's Tensor.add_ leaves a non-Parameter tensor as it is; only equality with
    # the unhooked run matters here.)
    same, plain = r.stdout.split(" ", 1)
    assert same == "True" and plain.startswith("([7.0, ") and "[3.0, 3.0, 3.0]" in plain
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert "Tensor.add_.0.forward" in data and "Tensor.__iadd__.0.forward" in data


def test_stop_without_start_raises_documented_exception(tmp_path):
    r = run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
try:
    dbg.stop()
except Exception as e:
    print("EXC", type(e).__name__, e)
dbg.start(); dbg.stop()
try:
    dbg.stop()
except Exception as e:
    print("EXC2", e)
""")
    assert "EXC Exception debugger.start() is not set in the current scope." in r.stdout
    assert "EXC2 debugger.start() is not set in the current scope." in r.stdout


def test_forward_backward_dump_end_is_stop(tmp_path):
    run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
dbg.start(); grad_fn(x); dbg.forward_backward_dump_end(); ops.abs(x); dbg.step()
""")
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert "Mint.sum.0.backward" in data and "Functional.abs.0.forward" not in data


def test_failing_kernel_is_the_scripts_error_not_the_probes(tmp_path):
    r = run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
b = Tensor(np.ones(3, np.float32)).astype(ms.bfloat16)
dbg.start()
try:
    y = ops.abs(b)          # the CPU has no bf16 Abs: MindSpore reports it at the first read
    y.asnumpy()
except TypeError as e:
    print("SCRIPT-ERROR", "Abs" in str(e))
z = ops.tanh(x)
dbg.stop(); dbg.step()
""")
    assert "SCRIPT-ERROR True" in r.stdout
    assert "internal error" not in r.stderr
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert data["Functional.abs.0.forward"]["output"] == [None]
    assert "Functional.tanh.0.forward" in data
