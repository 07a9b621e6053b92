"""Values of every kind that a wrapped API or a module can take or return, recorded at mix (APIs
and modules): None, tuples holding None, Python scalars and their subclasses, strings, nested
lists and dicts, dataclasses, objects with no useful repr. Runs with our msprobe and with the
original 1.2.1; tests/test_value_kinds.py compares the records
(tests/fixtures/original_1.2.1/value_kinds/).

    python value_kinds.py [--dump-path ./dump] [--level mix]
"""
import argparse
import dataclasses
import enum

import torch
import torch._dynamo  # noqa: F401  before the debugger: 1.2.1 wraps torch.ops.aten on creation

from msprobe.pytorch import PrecisionDebugger, seed_all


class Color(enum.IntEnum):
    RED = 1


class Unprintable:
    def __repr__(self):
        raise RuntimeError("no repr")

    __str__ = __repr__


@dataclasses.dataclass
class Pair:
    first: torch.Tensor
    second: object = None


class Returns(torch.nn.Module):
    """Returns what it was built with, after one linear layer so that something is recorded."""

    def __init__(self, make):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.make = make

    def forward(self, x):
        return self.make(self.lin(x))


KINDS = {
    "none": lambda t: None,
    "tuple_none": lambda t: (t, None),
    "int": lambda t: 3,
    "float": lambda t: 2.5,
    "bool": lambda t: True,
    "str": lambda t: "text",
    "surrogate": lambda t: "a\ud800b",
    "intenum": lambda t: Color.RED,
    "nested": lambda t: [[t, 1], {"a": t, "b": [None, "x", 2.0]}],
    "int_keys": lambda t: {1: t, (2, 3): "pair"},
    "dataclass": lambda t: Pair(t),
    "unprintable": lambda t: Unprintable(),
    "unprintable_in_list": lambda t: [t, Unprintable()],
}


class Net(torch.nn.Module):
    def __init__(self, kinds):
        super().__init__()
        self.kinds = torch.nn.ModuleDict({"k_" + k: Returns(KINDS[k]) for k in kinds})

    def forward(self, x):
        total = x.sum()
        for m in self.kinds.values():
            out = m(x)
            t = out if isinstance(out, torch.Tensor) else m.lin(x)
            total = total + t.sum()
        return total


def apis(x):
    """Wrapped APIs whose results are not tensors, or take unusual arguments."""
    y = x.new_zeros(x.shape)
    y[..., 1:] = x[..., :-1].clone()          # Tensor.__setitem__ returns None
    y[0, 0] = 5.0
    flag = bool(y.sum() > 0)                   # Tensor.__bool__ returns a Python bool
    parts = torch.unbind(y, dim=0)             # a tuple of tensors
    z = torch.cat([parts[0], parts[1]], dim=0)
    z = torch.nn.functional.pad(z, [1, 1], mode="constant", value=0.0)  # str keyword
    s = torch.einsum("i->", z) * Color.RED     # str argument; an IntEnum operand
    return torch.exp(torch.relu(y) + 1).sum() * (2.0 if flag else 1.0) + s * 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dump-path", default="./dump")
    p.add_argument("--level", default="mix")
    p.add_argument("--kinds", default=",".join(KINDS), help="module return kinds, comma-separated")
    p.add_argument("--no-probe", action="store_true", help="the same training without msprobe")
    args = p.parse_args()
    seed_all(1234)
    net = Net([k for k in args.kinds.split(",") if k])
    x = torch.randn(2, 4, requires_grad=True)
    debugger = None
    if not args.no_probe:
        debugger = PrecisionDebugger(task="statistics", dump_path=args.dump_path, level=args.level)
        debugger.start(net)
    loss = net(x) + apis(x)
    loss.backward()
    if debugger is not None:
        debugger.stop()
        debugger.step()
    print(f"loss {loss.item():.6f}", flush=True)


if __name__ == "__main__":
    main()
