"""The MindSpore training script dumped by the parity test, with our msprobe or with the original
1.2.1 (whichever `msprobe` is importable). Usage:
    python parity_net.py --config CONFIG.json [--steps N] [--model-api]
Prints one "step N loss L" line per step. Weights come from a fixed NumPy seed, so the losses are
the same in every run and with either msprobe.
With MSPROBE_ORIGINAL_SHIM=1 it first applies orig_shim.py (needed by the original on the
MindSpore versions that PyPI offers; see fixtures/original_1.2.1_mindspore/README.md)."""
import argparse
import os
import sys

import numpy as np

if os.environ.get("MSPROBE_ORIGINAL_SHIM") == "1":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import orig_shim  # noqa: F401

import mindspore as ms
from mindspore import Parameter, Tensor, mint, nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")

from msprobe.mindspore import PrecisionDebugger  # noqa: E402


def param(rng, shape, name):
    return Parameter(Tensor(rng.uniform(-0.5, 0.5, shape).astype(np.float32)), name=name)


class Block(nn.Cell):
    def __init__(self, rng):
        super().__init__()
        self.fc = nn.Dense(4, 3, weight_init=Tensor(rng.uniform(-0.5, 0.5, (3, 4)).astype(np.float32)),
                           bias_init=Tensor(rng.uniform(-0.5, 0.5, (3,)).astype(np.float32)))
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.fc(x))


class Net(nn.Cell):
    def __init__(self, rng):
        super().__init__()
        self.block = Block(rng)
        self.mul = ops.Mul()
        self.w2 = param(rng, (3, 2), "w2")

    def construct(self, x):
        y = self.block(x)
        y = self.mul(y, Tensor(np.float32(2.0)))
        y = mint.add(y, 1.0)
        y = ops.tanh(y)
        y = ops.matmul(y, self.w2)
        y = y * 0.5
        return mint.nn.functional.relu(y)


class WithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x, target):
        return ops.mean(ops.square(self.net(x) - target))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    p.add_argument("--steps", type=int, default=2)
    args = p.parse_args()
    rng = np.random.default_rng(1234)
    net = Net(rng)
    loss_net = WithLoss(net)
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.1)
    grad_fn = ms.value_and_grad(loss_net, None, optimizer.parameters)
    debugger = PrecisionDebugger(config_path=args.config)
    for step in range(args.steps):
        x = Tensor(rng.uniform(-1, 1, (5, 4)).astype(np.float32))
        target = Tensor(rng.uniform(0, 1, (5, 2)).astype(np.float32))
        debugger.start(net)
        loss, grads = grad_fn(x, target)
        debugger.stop()
        optimizer(grads)
        debugger.step()
        print(f"step {step} loss {float(loss.asnumpy()):.6f}", flush=True)


if __name__ == "__main__":
    main()
