"""Kills heavily dumping MindSpore training processes with SIGKILL at random moments.

    python kill_storm_ms.py OUT_DIR KILLS [SEED]

MindSpore and msprobe are imported once (no op is run); each victim is a fork that
trains parity_net's small network and dumps every step (mix statistics, L1 tensor, L0 md5 in turn)
into OUT_DIR/kill{k}/dump until it is killed 0 to 0.3 s after its first iteration. The parent leaves
the cut files for the test to check and prints one line per victim: "k level task steps_started".
"""
import json
import os
import random
import signal
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mindspore as ms  # noqa: E402
from mindspore import Tensor, nn  # noqa: E402
from parity_net import Net, WithLoss  # noqa: E402  (sets PyNative mode on CPU)

from msprobe.mindspore import PrecisionDebugger  # noqa: E402

CONFIGS = [
    {"task": "statistics", "level": "mix", "statistics": {"summary_mode": "statistics"}},
    {"task": "tensor", "level": "L1", "tensor": {}},
    {"task": "statistics", "level": "L0", "statistics": {"summary_mode": "md5"}},
]


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
    with open("config.json", "w") as f:
        json.dump(dict(config, dump_path="./dump"), f)
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
    out, kills = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    # No MindSpore op runs before the forks: its runtime threads would not survive them.
    for k in range(kills):
        where = os.path.join(out, f"kill{k}")
        os.makedirs(where)
        config = CONFIGS[k % len(CONFIGS)]
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.chdir(where)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            victim(config, w)
        os.close(w)
        ready = os.read(r, 1)
        os.close(r)
        if ready:
            time.sleep(rng.uniform(0.0, 0.3))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        steps = len([n for n in os.listdir(os.path.join(where, "dump")) if n.startswith("step")]) \
            if os.path.isdir(os.path.join(where, "dump")) else 0
        print(k, config["level"], config["task"], steps, flush=True)


if __name__ == "__main__":
    main()
