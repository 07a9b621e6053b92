"""MindSpore (PyNative, CPU): cells and wrapped APIs that return values of every kind (None, a tuple
holding None, Python scalars, strings, nested lists and dicts, a dataclass, an object whose repr
raises), recorded at mix with our msprobe or the original 1.2.1 (MSPROBE_ORIGINAL_SHIM=1, see
parity_net.py). tests/mindspore/test_ms_value_kinds.py compares the records with 1.2.1's
(tests/fixtures/original_1.2.1_mindspore/value_kinds/).

    python value_kinds_net.py [--dump-path ./dump] [--kinds a,b] [--no-probe]
"""
import argparse
import dataclasses
import os
import sys

import numpy as np

if os.environ.get("MSPROBE_ORIGINAL_SHIM") == "1":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import orig_shim  # noqa: F401

import mindspore as ms
from mindspore import Tensor, nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")


class Unprintable:
    def __repr__(self):
        raise RuntimeError("no repr")

    __str__ = __repr__


@dataclasses.dataclass
class Pair:
    first: object
    second: object = None


KINDS = {
    "none": lambda t: None,
    "tuple_none": lambda t: (t, None),
    "int": lambda t: 3,
    "float": lambda t: 2.5,
    "bool": lambda t: True,
    "str": lambda t: "text",
    "nested": lambda t: [[t, 1], {"a": t, "b": [None, "x", 2.0]}],
    "dataclass": lambda t: Pair(t),
    "unprintable": lambda t: Unprintable(),
}


class Returns(nn.Cell):
    def __init__(self, make, rng):
        super().__init__()
        self.fc = nn.Dense(4, 4, weight_init=Tensor(rng.uniform(-0.5, 0.5, (4, 4)).astype(np.float32)),
                           bias_init=Tensor(np.zeros(4, np.float32)))
        self.make = make

    def construct(self, x):
        return self.make(self.fc(x))


class Net(nn.Cell):
    def __init__(self, kinds, rng):
        super().__init__()
        self.kinds = nn.CellList([Returns(KINDS[k], rng) for k in kinds])

    def construct(self, x):
        total = x.sum()
        for cell in self.kinds:
            total = total + cell.fc(x).sum()
            cell(x)  # what it returns is recorded, not used
        # wrapped APIs whose results are Python values
        n = x.nelement() + int(x.is_complex()) + int(ops.is_tensor(x))
        return total * float(n)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dump-path", default="./dump")
    p.add_argument("--kinds", default=",".join(KINDS))
    p.add_argument("--no-probe", action="store_true")
    args = p.parse_args()
    rng = np.random.default_rng(1234)
    net = Net([k for k in args.kinds.split(",") if k], rng)
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())
    x = Tensor(rng.uniform(-1, 1, (2, 4)).astype(np.float32))
    debugger = None
    if not args.no_probe:
        from msprobe.mindspore import PrecisionDebugger
        debugger = PrecisionDebugger(task="statistics", dump_path=args.dump_path, level="mix")
        debugger.start(net)
    loss, _ = grad_fn(x)
    if debugger is not None:
        debugger.stop()
        debugger.step()
    print(f"loss {float(loss.asnumpy()):.6f}", flush=True)


if __name__ == "__main__":
    main()
