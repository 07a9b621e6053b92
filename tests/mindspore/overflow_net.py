"""A small MindSpore (PyNative) training run where chosen operations overflow, for the
overflow_check tests. Runs with our msprobe or, with MSPROBE_ORIGINAL_SHIM=1, with the original
1.2.1, from a scratch directory holding config.json:

    overflow_net.py --config CONFIG.json --fault all --steps 2 [--bad-aux] [--no-probe]

--fault: matmul (an fp16 matmul past 65504: inf), log (the log of a negative: NaN), div (a
division by zero), all (the three, each fed finite values), none. --bad-aux: an auxiliary input
holding inf passes through ops.clamp first (it receives inf: passed on). Prints each step's loss
and a SHA-256 of the final parameters' bytes, to compare runs bit for bit."""
import argparse
import hashlib
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


def dense(rng, n_in, n_out):
    return nn.Dense(n_in, n_out, weight_init=Tensor(rng.uniform(-0.5, 0.5, (n_out, n_in)).astype(np.float32)),
                    bias_init=Tensor(rng.uniform(-0.5, 0.5, (n_out,)).astype(np.float32)))


class Block(nn.Cell):
    def __init__(self, rng):
        super().__init__()
        self.fc = dense(rng, 8, 8)

    def construct(self, x):
        return ops.relu(self.fc(x))


class OverflowNet(nn.Cell):
    def __init__(self, rng, fault):
        super().__init__()
        self.fault = fault
        self.block = Block(rng)
        self.head = dense(rng, 8, 4)

    def construct(self, x, aux):
        s = ops.clamp(aux, max=1.0)                    # receives inf with --bad-aux: passed on
        h = self.block(x) * s.mean()
        y = h
        if self.fault in ("matmul", "all"):
            a = (h * 200.0).astype(ms.float16)
            g = ops.matmul(a, a.T)                     # fp16 sums past 65504: inf
            y = y + g.astype(ms.float32).mean(axis=1, keep_dims=True)
        if self.fault in ("log", "all"):
            y = y + ops.log(h - 1000.0)                # log of a negative: NaN
        if self.fault in ("div", "all"):
            y = y + h / (h - h)                        # division by zero: inf, and NaN for 0/0
        return self.head(y)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config")
    p.add_argument("--fault", default="all", choices=("matmul", "log", "div", "all", "none"))
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--bad-aux", action="store_true")
    p.add_argument("--no-probe", action="store_true")
    args = p.parse_args()

    rng = np.random.default_rng(0)
    net = OverflowNet(rng, args.fault)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    x = Tensor((rng.standard_normal((16, 8)) * 2.0).astype(np.float32))
    target = Tensor(np.arange(16) % 4, ms.int32)
    aux_np = np.ones(4, np.float32)
    if args.bad_aux:
        aux_np[1] = np.inf
    aux = Tensor(aux_np)

    def forward(a, b, t):
        return ops.cross_entropy(net(a, b), t)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    debugger = None
    if not args.no_probe:
        from msprobe.mindspore import PrecisionDebugger
        debugger = PrecisionDebugger(config_path=args.config)
    for step in range(args.steps):
        if debugger:
            debugger.start(net)
        loss, grads = grad_fn(x, aux, target)
        opt(grads)
        if debugger:
            debugger.stop()
            debugger.step()
        print(f"step {step} loss {float(loss.asnumpy())!r}", flush=True)
    # params: the bytes as they are; values: NaN written as one canonical NaN. With backward
    # hooks MindSpore may give a NaN gradient another sign bit (1.2.1 gives the same bytes as we
    # do); the values are the same.
    raw, canonical = hashlib.sha256(), hashlib.sha256()
    for prm in net.trainable_params():
        a = prm.asnumpy()
        raw.update(a.tobytes())
        canonical.update(np.where(np.isnan(a), np.float32(np.nan), a).astype(a.dtype).tobytes())
    print(f"params {raw.hexdigest()}", flush=True)
    print(f"values {canonical.hexdigest()}", flush=True)


if __name__ == "__main__":
    main()
