"""The MindSpore step dumped for 1.2.1's run_ut quirks not in ms_run_ut_net.py
(tests/fixtures/ms_run_ut_1.2.1/quirks, tests/mindspore/test_ms_run_ut.py). Usage:
    python ms_run_ut_quirks_net.py --config CONFIG.json
One forward and backward pass: Mint APIs called with numpy.float64 / numpy.int64 scalars (the dump
records them as {"type": "float64", ...}) beside the same calls with Python scalars, and Mint.max
along a dimension (values and integer indices)."""
import argparse

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, mint, nn

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")

from msprobe.mindspore import PrecisionDebugger  # noqa: E402


class Net(nn.Cell):
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
    args = p.parse_args()
    net = Net()
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())
    x = Tensor(np.random.default_rng(8).uniform(-1, 1, (3, 4)).astype(np.float32))
    debugger = PrecisionDebugger(config_path=args.config)
    debugger.start(net)
    loss, _ = grad_fn(x)
    debugger.stop()
    debugger.step()
    print(f"loss {float(loss.asnumpy()):.6f}", flush=True)


if __name__ == "__main__":
    main()
