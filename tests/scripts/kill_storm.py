"""Kills heavily dumping PyTorch training processes with SIGKILL at random moments.

    python kill_storm.py OUT_DIR KILLS [SEED]

torch and msprobe are imported once; each victim is a fork that trains a small model and dumps
every step (mix statistics, L1 tensor, L0 md5 in turn) into OUT_DIR/kill{k}/dump until it is
killed after a random delay (0 to 0.3 s after its first iteration). The parent leaves the cut
files for the test to check and prints one line per victim: "k level task steps_started".
"""
import os
import sys

import torch

torch.set_num_threads(1)
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from msprobe.pytorch import PrecisionDebugger  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from kill_storm_forks import kill_storm, write_config  # noqa: E402


def iterations(step):
    """Steps of 3 to 40 iterations: kills land in long steps (large batches) and at step ends
    (parameters_grad moved by atomic replacement, new files)."""
    return 3 + (step * 17) % 38


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(16, 16) for _ in range(4))
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        for layer in self.layers:
            x = F.relu(layer(x)) * 0.5 + x
        return self.out(x)


def victim(config, ready_fd):
    torch.manual_seed(0)
    write_config(config)
    debugger = PrecisionDebugger(config_path="config.json")

    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    told = False
    for step in range(100000):
        debugger.start(model)
        for _ in range(iterations(step)):
            loss = model(torch.randn(8, 16)).pow(2).mean()
            loss.backward()
            if not told:  # the first iteration is dumped: the victim is warm
                os.write(ready_fd, b"x")
                told = True
        opt.step()
        opt.zero_grad()
        debugger.stop()
        debugger.step()
    os._exit(0)


def main():
    # torch's lazy set-up (the optimizer imports torch._dynamo: seconds), once, before the forks.
    warm = Net()
    warm(torch.randn(8, 16)).sum().backward()
    torch.optim.SGD(warm.parameters(), lr=0.01).step()
    kill_storm(sys.argv, victim)


if __name__ == "__main__":
    main()
