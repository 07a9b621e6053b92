"""grad_net.py for MindSpore (PyNative, or static graph with --graph): a tiny model with exact
gradients trained for a few SGD steps, with debugger.monitor(optimizer) as 1.2.1 documents it.

    python grad_net_ms.py --config CONFIG [--steps N] [--perturb-step S] [--no-probe] [--graph]

Prints one line per step: the loss and a SHA-256 of the gradients' bytes. With
MSPROBE_ORIGINAL_SHIM=1 it first imports tests/mindspore/orig_shim.py (1.2.1 on MindSpore 2.10)."""
import argparse
import hashlib
import os
import sys

if os.environ.get("MSPROBE_ORIGINAL_SHIM") == "1":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "mindspore"))
    import orig_shim  # noqa: F401

import mindspore as ms
import numpy as np
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 6)
        self.fc2 = nn.Dense(6, 3)
        self.relu = nn.ReLU()
        for i, p in enumerate(self.trainable_params()):
            n = int(np.prod(p.shape))
            p.set_data(ms.Tensor((((np.arange(n) * (3 + i)) % 9 - 4) / 8).reshape(p.shape).astype(np.float32)))

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def batch(step, perturb_step):
    x = ((np.arange(20, dtype=np.float32) * (step + 2)) % 5 - 2).reshape(5, 4)
    if perturb_step is not None and step >= perturb_step:
        x[:2] = -4 * x[:2] - 3
    return ms.Tensor(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--perturb-step", type=int)
    ap.add_argument("--no-probe", action="store_true")
    ap.add_argument("--graph", action="store_true")
    args = ap.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE if args.graph else ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    model = Net()
    opt = nn.SGD(model.trainable_params(), learning_rate=0.125)
    debugger = None
    if not args.no_probe:
        from msprobe.mindspore import PrecisionDebugger
        debugger = PrecisionDebugger(args.config)
        debugger.monitor(opt)
    coef = ms.Tensor(np.array([[1.0, -2.0, 0.5]], dtype=np.float32))

    def forward(x):
        return (model(x) * coef).sum()

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    for step in range(args.steps):
        loss, grads = grad_fn(batch(step, args.perturb_step))
        digest = hashlib.sha256()
        for g in grads:
            digest.update(g.asnumpy().tobytes())
        opt(grads)
        print(f"step {step} loss {float(loss.asnumpy())!r} grads {digest.hexdigest()}", flush=True)
    if debugger is not None:
        debugger.stop()


if __name__ == "__main__":
    main()
