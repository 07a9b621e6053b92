"""Deferred tensor reads (value_encoding.py): a record holds the values the tensor had when the
API ran, also when the tensor is changed in place later in the dump window, and dump.json keeps
the call order. Fresh interpreters with real MindSpore (PyNative, CPU)."""
import pytest
from ms_helpers import load_dump, run_python

# Every test runs on the host path and on the device path forced onto CPU tensors.
pytestmark = pytest.mark.usefixtures("device_path")

PRELUDE = r"""
import numpy as np, mindspore as ms
from mindspore import Tensor, Parameter, nn, ops, mint
ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")
from msprobe.mindspore import PrecisionDebugger
x = Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
"""


def run(tmp_path, body):
    return run_python(PRELUDE + body, cwd=tmp_path)


def test_in_place_api_after_the_call_does_not_change_its_record(tmp_path):
    run(tmp_path, """
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
dbg.start()
y = ops.mul(x, 2.0)        # output Max 2
y += 100.0                 # Tensor.__iadd__: in place
z = ops.abs(y)             # input Max 102
dbg.stop(); dbg.step()
""")
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert list(data) == ["Functional.mul.0.forward", "Tensor.__iadd__.0.forward",
                          "Functional.abs.0.forward"]
    assert data["Functional.mul.0.forward"]["output"][0]["Max"] == 2.0
    assert data["Tensor.__iadd__.0.forward"]["input_args"][0]["Max"] == 2.0
    assert data["Functional.abs.0.forward"]["input_args"][0]["Max"] == 102.0


def test_optimizer_in_the_window_does_not_change_forward_records(tmp_path):
    # The weight is set to an API's output (so they share storage) and then updated in place by
    # the optimizer inside the dump window, as with a broadcast of initial weights.
    run(tmp_path, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((4, 3), np.float32)), name="w")
    def construct(self, x):
        return mint.sum(ops.matmul(x, self.w) ** 2)

net = Net()
opt = nn.SGD(net.trainable_params(), learning_rate=0.5)
grad_fn = ms.value_and_grad(net, None, net.trainable_params())
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
dbg.start(net)
net.w.set_data(ops.mul(net.w.value(), 3.0))     # recorded output: all 3
loss, grads = grad_fn(x)
opt(grads)                                       # updates w (and the mul output) in place
dbg.stop(); dbg.step()
print("W", float(net.w.value().asnumpy().max()))
""")
    data = load_dump(tmp_path / "dump")[0]["data"]
    out = data["Functional.mul.0.forward"]["output"][0]
    assert out["Max"] == 3.0 and out["Min"] == 3.0
    assert "Functional.matmul.0.backward" in data
