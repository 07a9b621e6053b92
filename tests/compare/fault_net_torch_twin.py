"""The PyTorch twin of fault_net_ms.py (the same weights, drawn from the same numpy generator, the
same data and the same ops), dumped by our probe as the bench run of a MindSpore-against-PyTorch
first-divergence test. No fault.
Usage: python fault_net_torch_twin.py DUMP_PATH [--task statistics|tensor]"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from dump_config import write_dump_config

from msprobe.pytorch import PrecisionDebugger


def param(rng, shape):
    return nn.Parameter(torch.from_numpy(rng.uniform(-0.5, 0.5, shape).astype(np.float32)))


class Block(nn.Module):
    def __init__(self, rng, d):
        super().__init__()
        self.gamma, self.beta = param(rng, (d,)), param(rng, (d,))
        self.w_up, self.w_down = param(rng, (2 * d, d)), param(rng, (d, 2 * d))

    def forward(self, x):
        h = x * torch.rsqrt(torch.mean(x * x, -1, keepdim=True) + 1e-5) * self.gamma + self.beta
        h = F.gelu(F.linear(h, self.w_up))
        return x + F.linear(h, self.w_down)


class FaultNet(nn.Module):
    def __init__(self, vocab=50, d=32, layers=4):
        super().__init__()
        rng = np.random.default_rng(1234)
        self.table = param(rng, (vocab, d))
        self.blocks = nn.ModuleList(Block(rng, d) for _ in range(layers))
        self.head = param(rng, (vocab, d))

    def forward(self, ids):
        x = F.embedding(ids, self.table)
        for b in self.blocks:
            x = b(x)
        return F.linear(x, self.head)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump_path")
    ap.add_argument("--task", default="statistics")
    a = ap.parse_args()
    cfg_path = write_dump_config(a.dump_path, a.task, "L1")
    net = FaultNet()
    debugger = PrecisionDebugger(config_path=cfg_path)
    rng = np.random.default_rng(5)
    ids = torch.from_numpy(rng.integers(0, 50, (4, 16)).astype(np.int64))
    target = torch.from_numpy(rng.integers(0, 50, (64,)).astype(np.int64))
    debugger.start(net)
    logits = torch.log(torch.add(net(ids), 100.0))
    loss = F.cross_entropy(logits.reshape(-1, 50), target)
    loss.backward()
    debugger.stop()
    debugger.step()
    print("loss", float(loss))


if __name__ == "__main__":
    main()
