"""A small decoder-like PyTorch model dumped twice for the first-divergence tests: once as the
"bench" run and once as the "npu" run, where one call of an op can be computed differently (the
injected fault: the "device kernel" of that op is swapped before the probe wraps the API, so the
call looks the same in the dump) and every weight can carry ulp-level noise (what two devices
always show).
Usage:
    python fault_net.py DUMP_PATH --task statistics|tensor|md5 --level L1|mix
                        [--fault none|gelu_tanh|gelu_backward_tanh|layernorm_eps|log_neg] [--fault-call K]
                        [--noise REL] [--steps N] [--config CONFIG_JSON] [--log-near-one]
--log-near-one takes the log of 1 + logits/1000 (in both runs, no fault): an ill-conditioned log
whose output difference comes from its inputs (the replay verdict's "its inputs" case).
--config dumps with that config.json (compare's scoped re-dump config, its dump_path taken from
the working folder) instead of one made from --task/--level; DUMP_PATH is then unused.
Prints "loss L" per step."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from dump_config import write_dump_config

from msprobe.pytorch import PrecisionDebugger, seed_all


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 2 * d)
        self.down = nn.Linear(2 * d, d)

    def forward(self, x):
        h = F.gelu(self.up(self.norm(x)))
        return x + self.down(h)


class FaultNet(nn.Module):
    def __init__(self, vocab=50, d=32, layers=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        for b in self.blocks:
            x = b(x)
        return self.head(x)


class _GeluTanhBackward(torch.autograd.Function):
    """gelu whose forward is exact and whose backward is the tanh approximation's derivative:
    a fault only the backward shows."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch._C._nn.gelu(x)   # torch's own kernel, neither the fault's nor the probe's wrapper

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            (g,) = torch.autograd.grad(torch._C._nn.gelu(x, approximate="tanh"), x, grad)
        return g


def inject_fault(fault, call):
    """Swaps the implementation of one call of an API (before the probe wraps it)."""
    if fault not in ("gelu_tanh", "layernorm_eps", "gelu_backward_tanh"):
        return
    name = "layer_norm" if fault == "layernorm_eps" else "gelu"
    original = getattr(F, name)
    calls = [0]

    def faulty(*args, **kwargs):
        calls[0] += 1
        if calls[0] - 1 != call:
            return original(*args, **kwargs)
        if fault == "gelu_tanh":
            return original(*args, approximate="tanh")
        if fault == "gelu_backward_tanh":
            return _GeluTanhBackward.apply(*args)
        x, shape, weight, bias = args[:4]
        return original(x, shape, weight, bias, 1e-2)   # eps 1e-2 instead of 1e-5

    setattr(F, name, faulty)


def add_noise(model, rel, seed=99):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1 + rel * torch.randn(p.shape, generator=g))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump_path")
    ap.add_argument("--task", default="statistics")
    ap.add_argument("--level", default="L1")
    ap.add_argument("--fault", default="none")
    ap.add_argument("--fault-call", type=int, default=2)
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--config", default=None)
    ap.add_argument("--log-near-one", action="store_true")
    a = ap.parse_args()
    seed_all(1234, mode=False)
    inject_fault(a.fault, a.fault_call)
    model = FaultNet()
    if a.noise:
        add_noise(model, a.noise)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    cfg_path = a.config or write_dump_config(a.dump_path, a.task, a.level)
    debugger = PrecisionDebugger(config_path=cfg_path)
    g = torch.Generator().manual_seed(5)
    for _ in range(a.steps):
        ids = torch.randint(0, 50, (4, 16), generator=g)
        target = torch.randint(0, 50, (4, 16), generator=g)
        debugger.start(model)
        logits = model(ids)
        # Both runs take a log; with the fault its argument goes negative (nan from finite input).
        shift = 0.0 if a.fault == "log_neg" else 100.0
        if a.log_near_one:
            logits = torch.log(torch.add(torch.mul(logits, 1e-3), 1.0)) * 1e3
        else:
            logits = torch.log(torch.add(logits, shift))
        loss = F.cross_entropy(logits.reshape(-1, 50), target.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad()
        debugger.stop()
        debugger.step()
        print("loss", float(loss))


if __name__ == "__main__":
    main()
