"""Kills heavily dumping MindSpore training processes with SIGKILL at random moments.

    python kill_storm_ms.py OUT_DIR KILLS [SEED]

MindSpore and msprobe are imported once (no op is run); each victim is a fork that
trains parity_net's small network and dumps every step (mix statistics, L1 tensor, L0 md5 in turn)
into OUT_DIR/kill{k}/dump until it is killed 0 to 0.3 s after its first iteration. The parent leaves
the cut files for the test to check and prints one line per victim: "k level task steps_started".
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import mindspore as ms  # noqa: E402
from kill_storm_forks import kill_storm, write_config  # noqa: E402
from mindspore import Tensor, nn  # noqa: E402
from parity_net import Net, WithLoss  # noqa: E402  (sets PyNative mode on CPU)

from msprobe.mindspore import PrecisionDebugger  # noqa: E402


def iterations(step):
    """Steps of 2 to 20 iterations: kills land inside steps and at their ends."""
    return 2 + (step * 7) % 19


def training(seed=1234):
    rng = np.random.default_rng(seed)
    net = Net(rng)
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.01)
    grad_fn = ms.value_and_grad(WithLoss(net), None, optimizer.parameters)
    x = Tensor(rng.uniform(-1, 1, (5, 4)).astype(np.float32))
    target = Tensor(rng.uniform(0, 1, (5, 2)).astype(np.float32))
    return net, optimizer, grad_fn, x, target


def victim(config, ready_fd):
    write_config(config)
    debugger = PrecisionDebugger(config_path="config.json")
    net, optimizer, grad_fn, x, target = training()
    told = False
    for step in range(100000):
        debugger.start(net)
        for _ in range(iterations(step)):
            _, grads = grad_fn(x, target)
            optimizer(grads)
            if not told:
                os.write(ready_fd, b"x")
                told = True
        debugger.stop()
        debugger.step()
    os._exit(0)


def main():
    # No MindSpore op runs before the forks: its runtime threads would not survive them.
    kill_storm(sys.argv, victim, may_die_early=True)


if __name__ == "__main__":
    main()
