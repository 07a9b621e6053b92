"""The MindSpore twin of fault_net.py: a small decoder-like Cell dumped as "bench" and "npu" run,
where one call of an op can be computed differently (its implementation swapped before the probe
wraps the API) and every weight can carry ulp-level noise.
Usage:
    python fault_net_ms.py DUMP_PATH --task statistics|tensor|md5 --level L1|mix
                           [--fault none|gelu_tanh|linear_half|log_neg] [--fault-call K]
                           [--noise REL]
Prints "loss L"."""
import argparse

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, mint, nn, ops
from mindspore.mint.nn import functional as MF

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")


def inject_fault(fault, call):
    """Swaps the implementation of one call of an API (before the probe wraps it)."""
    if fault not in ("gelu_tanh", "linear_half"):
        return
    owner, name = (ops, "gelu") if fault == "gelu_tanh" else (MF, "linear")
    original = getattr(owner, name)
    calls = [0]

    def faulty(*args, **kwargs):
        calls[0] += 1
        if calls[0] - 1 != call:
            return original(*args, **kwargs)
        if fault == "gelu_tanh":
            return original(*args, approximate="tanh")
        # a float16 kernel: inputs rounded to half precision, the result back to float32
        return original(*(a.astype(ms.float16) for a in args), **kwargs).astype(ms.float32)

    setattr(owner, name, faulty)


from dump_config import write_dump_config  # noqa: E402

from msprobe.mindspore import PrecisionDebugger  # noqa: E402  (after the imports it wraps)


def param(rng, shape, noise, name):
    w = rng.uniform(-0.5, 0.5, shape).astype(np.float32)
    if noise:
        w = (w * (1 + noise * np.random.default_rng(99).standard_normal(shape))).astype(np.float32)
    return Parameter(Tensor(w), name=name)


class Block(nn.Cell):
    def __init__(self, rng, d, noise, i):
        super().__init__()
        self.gamma = param(rng, (d,), 0, f"g{i}")
        self.beta = param(rng, (d,), 0, f"b{i}")
        self.w_up = param(rng, (2 * d, d), noise, f"wu{i}")
        self.w_down = param(rng, (d, 2 * d), noise, f"wd{i}")

    def construct(self, x):
        # RMS norm (MindSpore's CPU backend has no LayerNorm gradient kernel).
        h = x * ops.rsqrt(ops.mean(x * x, -1, keep_dims=True) + 1e-5) * self.gamma + self.beta
        h = ops.gelu(MF.linear(h, self.w_up))
        return x + MF.linear(h, self.w_down)


class FaultNet(nn.Cell):
    def __init__(self, noise, vocab=50, d=32, layers=4):
        super().__init__()
        rng = np.random.default_rng(1234)
        self.table = param(rng, (vocab, d), noise, "table")
        self.blocks = nn.CellList([Block(rng, d, noise, i) for i in range(layers)])
        self.head = param(rng, (vocab, d), noise, "head")

    def construct(self, ids):
        x = ops.gather(self.table, ids, 0)
        for b in self.blocks:
            x = b(x)
        return MF.linear(x, self.head)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump_path")
    ap.add_argument("--task", default="statistics")
    ap.add_argument("--level", default="L1")
    ap.add_argument("--fault", default="none")
    ap.add_argument("--fault-call", type=int, default=2)
    ap.add_argument("--noise", type=float, default=0.0)
    a = ap.parse_args()
    inject_fault(a.fault, a.fault_call)
    cfg_path = write_dump_config(a.dump_path, a.task, a.level)
    net = FaultNet(a.noise)
    debugger = PrecisionDebugger(config_path=cfg_path)
    rng = np.random.default_rng(5)
    ids = Tensor(rng.integers(0, 50, (4, 16)).astype(np.int32))
    target = Tensor(rng.integers(0, 50, (64,)).astype(np.int32))
    shift = 0.0 if a.fault == "log_neg" else 100.0

    def loss_fn(ids, target):
        logits = mint.log(mint.add(net(ids), shift))
        return ops.cross_entropy(logits.reshape(-1, 50), target)

    grad_fn = ms.value_and_grad(loss_fn, None, net.trainable_params())
    debugger.start(net)
    loss, _ = grad_fn(ids, target)
    debugger.stop()
    debugger.step()
    print("loss", float(loss))


if __name__ == "__main__":
    main()
