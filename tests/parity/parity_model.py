"""Deterministic small training script for dump-parity checks.

Runs unchanged with our ``msprobe`` and with the original msprobe 1.2.1 (both provide
``from msprobe.pytorch import PrecisionDebugger, seed_all``), so the two dump folders can be
compared entry by entry (see ../shared/tools/dump_diff.py and tests/fixtures/original_1.2.1).

    python parity_model.py --config CONFIG.json --steps 2

The configs in ``configs/`` use a relative ``dump_path`` ("./dump"): run from a scratch
working directory.

What the model exercises (all on CPU, float32, a few hundred bytes per tensor):
  * several nn.Linear layers, one sub-module called twice per forward (``shared``);
  * a nested sub-module (``head``) that returns a tuple (two outputs);
  * in-place tensor methods (``relu_``, ``add_``), torch.cat, slicing (__getitem__);
  * F.linear called with keyword arguments (weight=, bias=);
  * a bool tensor (comparison), an int64 tensor (argmax, class targets), 0-dim tensors
    (float32 loss, int64 count, float64 sum), float64 tensors;
  * a torch.Size positional argument and dtype=/device= keyword arguments (torch.full);
  * an SGD step inside start()/stop().
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

from msprobe.pytorch import PrecisionDebugger, seed_all

IN_DIM = 8
HIDDEN = 8
N_CLASSES = 5
BATCH = 4


class Head(nn.Module):
    """Returns two tensors (a tuple) built by slicing one projection."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(HIDDEN, 4)

    def forward(self, h):
        y = self.proj(h)
        return y[:, :2], y[:, 2:]


class ParityNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN_DIM, HIDDEN)
        self.shared = nn.Linear(HIDDEN, HIDDEN)  # called twice per forward
        self.head = Head()
        # direct parameters of the root module, used through F.linear(..., weight=, bias=)
        self.w_out = nn.Parameter(torch.linspace(-0.5, 0.5, 3 * 2).reshape(3, 2))
        self.b_out = nn.Parameter(torch.zeros(3))

    def forward(self, x):
        h = self.fc1(x)
        h = h * 1.0
        h.relu_()                      # in-place
        h = self.shared(h)
        h.add_(x, alpha=0.5)           # in-place with a kwarg
        h = self.shared(h)             # second call of the same module
        a, b = self.head(h)            # tuple output
        c = F.linear(a, weight=self.w_out, bias=self.b_out)
        z = torch.cat([c, b], dim=1)   # [BATCH, 5]
        mask = z > 0                   # bool tensor
        z = torch.where(mask, z, z * 0.1)
        return z


def make_inputs(steps):
    g = torch.Generator().manual_seed(20250207)
    data = []
    for _ in range(steps):
        x = torch.randn(BATCH, IN_DIM, generator=g)
        target = torch.randint(0, N_CLASSES, (BATCH,), generator=g)
        data.append((x, target))
    return data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()

    seed_all(1234)
    debugger = PrecisionDebugger(config_path=args.config)
    model = ParityNet()
    # foreach=False: the same per-parameter update path on CPU and on accelerators
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, foreach=False)
    inputs = make_inputs(args.steps)

    for step, (x, target) in enumerate(inputs):
        debugger.start(model)
        optimizer.zero_grad()
        logits = model(x)
        loss = F.cross_entropy(logits, target)  # 0-dim float32, int64 target
        # side metrics, not part of the loss
        pred = logits.argmax(dim=1)             # int64 tensor
        correct = (pred == target).sum()        # bool tensor -> 0-dim int64
        acc = correct / BATCH                   # 0-dim float32
        # torch.Size positional argument, dtype= and device= keyword arguments, float64 tensors
        ref = torch.full(logits.shape, 0.1, dtype=torch.float64, device=x.device)
        gap = (logits.detach() - ref).abs().sum(dtype=torch.float64)  # 0-dim float64
        loss.backward()
        optimizer.step()
        debugger.stop()
        debugger.step()
        print(f"step {step} loss {loss.item():.6f} acc {acc.item():.2f} gap {gap.item():.6f}",
              flush=True)


if __name__ == "__main__":
    main()
