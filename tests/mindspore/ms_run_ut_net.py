"""The MindSpore step dumped for the run_ut tests (tests/fixtures/ms_run_ut_1.2.1/,
tests/mindspore/test_ms_run_ut.py). Usage:
    python ms_run_ut_net.py --config CONFIG.json [--repeat N] [--net quirks]
One forward and backward pass through mint and Tensor APIs that 1.2.1's MindSpore run_ut checks,
including the ones behind its known quirks (Mint.cat, Mint.max, Tensor.topk, Tensor.transpose).
--net quirks: Mint APIs called with numpy.float64 / numpy.int64 scalars (the dump records them as
{"type": "float64", ...}) beside the same calls with Python scalars, and Mint.max along a
dimension (values and integer indices). Inputs come from fixed NumPy seeds."""
import argparse

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, mint, nn

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")

from msprobe.mindspore import PrecisionDebugger  # noqa: E402


class Net(nn.Cell):
    def __init__(self, rng):
        super().__init__()
        self.w = Parameter(Tensor(rng.uniform(-0.5, 0.5, (4, 3)).astype(np.float32)), name="w")

    def construct(self, x):
        y = mint.matmul(x, self.w)
        y = mint.add(y, 0.5)
        y = mint.mul(y, y)
        y = mint.nn.functional.relu(y - 0.1)
        z = mint.cat((y, y), 1)
        m = mint.max(z)
        v, _ = z.topk(2)
        t = z.reshape(1, 5, 6).transpose(0, 2, 1)
        s = mint.sum(t) + v.sum() + m
        return mint.exp(s / 100) + y.sin().mean()


class QuirksNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.random.default_rng(7).uniform(-1, 1, (3, 4)).astype(np.float32)), name="w")

    def construct(self, x):
        y = mint.mul(x, np.float64(1.5))
        y = mint.mul(y, 1.5)
        y = mint.add(y, np.int64(2))
        y = mint.clamp(y, np.float64(0.5), 3.0)
        v, _ = mint.max(y * self.w, dim=1)
        return v.sum()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    p.add_argument("--repeat", type=int, default=1, help="passes in the dumped step (bench: 40 -> 520 APIs)")
    p.add_argument("--net", choices=("main", "quirks"), default="main")
    args = p.parse_args()
    if args.net == "quirks":
        net, x = QuirksNet(), Tensor(np.random.default_rng(8).uniform(-1, 1, (3, 4)).astype(np.float32))
    else:
        rng = np.random.default_rng(4321)
        net = Net(rng)
        x = Tensor(rng.uniform(-1, 1, (5, 4)).astype(np.float32))
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())
    debugger = PrecisionDebugger(config_path=args.config)
    debugger.start(net)
    for _ in range(args.repeat):
        loss, _ = grad_fn(x)
    debugger.stop()
    debugger.step()
    print(f"loss {float(loss.asnumpy()):.6f}", flush=True)


if __name__ == "__main__":
    main()
