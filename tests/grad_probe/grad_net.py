"""A tiny PyTorch training run for the grad_probe tests, with exact gradients: weights, inputs and
the learning rate are small dyadic numbers and the loss is linear in the output, so every gradient
is exactly representable in float32 and the same on any CPU (MD5 included).

    python grad_net.py --config CONFIG [--steps N] [--perturb-step S] [--no-probe]
                       [--compare A B OUT]

Prints one line per step: the loss and a SHA-256 of the gradients' bytes (training unchanged).
--perturb-step S: from step S on, the input of one sample is negated (a second run that parts
from the first at step S). --compare: only GradComparator.compare_distributed(A, B, OUT).
Runs with whichever msprobe the interpreter imports (ours, or 1.2.1 in its venv)."""
import argparse
import hashlib

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.fc2 = nn.Linear(6, 3)
        self.frozen = nn.Linear(3, 3)   # requires_grad off: no gradient, no row
        self.frozen.requires_grad_(False)
        with torch.no_grad():
            for i, p in enumerate(self.parameters()):
                n = p.numel()
                p.copy_(((torch.arange(n, dtype=torch.float32) * (3 + i)) % 9 - 4).reshape(p.shape) / 8)

    def forward(self, x):
        return self.frozen(self.fc2(torch.relu(self.fc1(x))))


def batch(step, perturb_step):
    x = ((torch.arange(20, dtype=torch.float32) * (step + 2)) % 5 - 2).reshape(5, 4)
    if perturb_step is not None and step >= perturb_step:
        x[:2] = -4 * x[:2] - 3
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--perturb-step", type=int)
    ap.add_argument("--no-probe", action="store_true")
    ap.add_argument("--compare", nargs=3)
    args = ap.parse_args()
    if args.compare:
        from msprobe.core.grad_probe.grad_compare import GradComparator
        GradComparator.compare_distributed(*args.compare)
        return
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    if not args.no_probe:
        from msprobe.pytorch import PrecisionDebugger
        debugger = PrecisionDebugger(args.config)
        debugger.monitor(model)
    coef = torch.tensor([[1.0, -2.0, 0.5]])
    for step in range(args.steps):
        opt.zero_grad()
        loss = (model(batch(step, args.perturb_step)) * coef).sum()
        loss.backward()
        digest = hashlib.sha256()
        for p in model.parameters():
            if p.grad is not None:
                digest.update(p.grad.numpy().tobytes())
        opt.step()
        print(f"step {step} loss {loss.item()!r} grads {digest.hexdigest()}", flush=True)


if __name__ == "__main__":
    main()
