"""A small PyTorch training run where chosen operations overflow, for overflow_check tests.

Runs unchanged with our msprobe and with the original msprobe 1.2.1, from a scratch working
directory (the configs use dump_path "./dump"):

    python overflow_model.py --config CONFIG.json --fault all --steps 2 [--bad-aux] [--no-probe]

--fault picks what overflows in the forward (the culprits, each fed finite values):
  matmul  an fp16 matmul whose sums pass 65504 (inf)
  log     the log of a negative tensor (NaN)
  div     a division by zero (inf, and NaN for 0/0)
  all     the three, in that order; none: nothing overflows
--bad-aux feeds an auxiliary input holding inf through torch.clamp before anything else runs:
that call receives inf (passed on) and is the first overflow in time, not a culprit.
The loss and gradients then carry NaN into backward and the SGD step. The script prints each
step's loss and a SHA-256 of the final parameters' bytes, so that runs with and without the probe
can be compared bit for bit (--no-probe: no msprobe at all).
"""
import argparse
import hashlib

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))


class OverflowNet(nn.Module):
    def __init__(self, fault):
        super().__init__()
        self.fault = fault
        self.block = Block()
        self.head = nn.Linear(8, 4)

    def forward(self, x, aux):
        s = torch.clamp(aux, max=1.0)                  # receives inf with --bad-aux: passed on
        h = self.block(x) * s.mean()
        y = h
        # Each fault gets the finite h, so each is a culprit; adding them up passes them on.
        if self.fault in ("matmul", "all"):
            a = (h * 200.0).half()
            g = torch.matmul(a, a.t())                 # fp16 sums past 65504: inf
            y = y + g.float().mean(dim=1, keepdim=True)
        if self.fault in ("log", "all"):
            y = y + torch.log(h - 1000.0)              # log of a negative: NaN
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
    p.add_argument("--level", default=None, help="start(model) is given for every level")
    args = p.parse_args()

    torch.manual_seed(0)
    net = OverflowNet(args.fault)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x = torch.randn(16, 8) * 2.0
    target = torch.arange(16) % 4
    aux = torch.ones(4)
    if args.bad_aux:
        aux[1] = float("inf")
    debugger = None
    if not args.no_probe:
        from msprobe.pytorch import PrecisionDebugger
        debugger = PrecisionDebugger(config_path=args.config)
    for step in range(args.steps):
        if debugger:
            debugger.start(net)
        opt.zero_grad()
        loss = F.cross_entropy(net(x, aux), target)
        loss.backward()
        opt.step()
        if debugger:
            debugger.stop()
            debugger.step()
        print(f"step {step} loss {loss.item()!r}", flush=True)
    digest = hashlib.sha256()
    for t in net.state_dict().values():
        digest.update(t.detach().numpy().tobytes())
    print(f"params {digest.hexdigest()}", flush=True)


if __name__ == "__main__":
    main()
