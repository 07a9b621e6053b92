"""A small network run under level L2 (kernel dump) by test_ms_kernel_dump.py, in a fresh
interpreter, in the directory holding config.json. Usage:
    kernel_net.py MODE [--late] [--steps N] [--junk]
MODE: graph_train (GRAPH_MODE, value_and_grad + SGD), graph_forward (GRAPH_MODE, forward only),
pynative_jit (PYNATIVE with one mindspore.jit function between plain PyNative ops).
--late: runs one graph before PrecisionDebugger.start() (MindSpore has then read its dump
configuration already). --junk: leaves a malformed dump file in an iteration folder."""
import argparse
import os

import mindspore as ms
import numpy as np
from mindspore import nn, ops

p = argparse.ArgumentParser()
p.add_argument("mode")
p.add_argument("--late", action="store_true")
p.add_argument("--junk", action="store_true")
p.add_argument("--steps", type=int, default=3)
args = p.parse_args()

graph = args.mode.startswith("graph")
ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE, device_target="CPU")
from msprobe.mindspore import PrecisionDebugger  # noqa: E402


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(4, 3, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return ops.relu(self.d(x)) * 2


class Other(nn.Cell):
    def construct(self, x):
        return x - 1


x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) - 3)
if args.late:
    Other()(x)
debugger = PrecisionDebugger(config_path="./config.json")
debugger.start()

if args.mode == "graph_train":
    net = Net()
    loss_fn = nn.MSELoss()
    opt = nn.SGD(net.trainable_params(), 0.01)

    def forward(a, b):
        return loss_fn(net(a), b)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    y = ms.Tensor(np.zeros((2, 3), np.float32))
    for _ in range(args.steps):
        loss, grads = grad_fn(x, y)
        opt(grads)
        print("loss", float(loss))
        debugger.step()
elif args.mode == "graph_forward":
    net = Net()
    for _ in range(args.steps):
        print("out", float(net(x).sum()))
        debugger.step()
else:
    @ms.jit
    def jitted(a, b):
        return ops.matmul(a, b.T) + 1

    for _ in range(args.steps):
        h = ops.exp(x)              # PyNative: not dumped
        out = jitted(h, x)          # compiled: dumped by MindSpore
        print("out", float(ops.sin(out).sum()))
        debugger.stop()
        debugger.step()

if args.junk:
    folder = os.path.join("dump", "rank_0", "Net", "0", "0")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "Junk.Default_Junk-op0.0.0.1.input.0.DefaultFormat.Float32.npy"),
              "wb") as f:
        f.write(b"not an npy file")
print("DONE")
