"""A tiny PyTorch training run under TrainerMon, for the monitor tests and 1.2.1's fixtures.

    python monitor_net.py --config CONFIG [--steps N] [--optim sgd|adam|adamw] [--no-monitor]
                          [--as-121] [--grad-acc M]

Prints one line per step with the loss (repr: training unchanged is checked bit for bit); with
--grad-acc M, M micro-batches (one backward each) per optimizer step and one line per micro-batch. The
monitor's files go to $MONITOR_OUTPUT_DIR. --as-121 passes what 1.2.1 needs on plain PyTorch
(params_have_main_grad=False, opt_ty="Megatron_FP32Optimizer"); without it the defaults are used.
Runs with whichever msprobe the interpreter imports (ours, or 1.2.1 in its venv)."""
import argparse

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(6, 3)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Linear(3, 2)
        with torch.no_grad():
            for i, p in enumerate(self.parameters()):
                n = p.numel()
                p.copy_(((torch.arange(n, dtype=torch.float32) * (3 + i)) % 9 - 4).reshape(p.shape) / 8)

    def forward(self, x):
        return self.head(self.block(x))


def batch(step):
    return ((torch.arange(20, dtype=torch.float32) * (step + 2)) % 5 - 2).reshape(5, 4) / 4


OPTIMIZERS = {
    "sgd": lambda params: torch.optim.SGD(params, lr=0.125),
    "adam": lambda params: torch.optim.Adam(params, lr=0.0625),
    "adamw": lambda params: torch.optim.AdamW(params, lr=0.0625),
}


def start_monitor(config, model, opt, as_121, grad_acc=1):
    """TrainerMon on model and opt; as_121: with what 1.2.1 needs on plain PyTorch."""
    from msprobe.pytorch import TrainerMon
    if as_121:
        mon = TrainerMon(config, params_have_main_grad=False, opt_ty="Megatron_FP32Optimizer")
    else:
        mon = TrainerMon(config)
    mon.monitor_gnorm_with_ad(model, grad_acc_steps=grad_acc, optimizer=opt)
    return mon


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--optim", default="adam", choices=sorted(OPTIMIZERS))
    ap.add_argument("--no-monitor", action="store_true")
    ap.add_argument("--as-121", action="store_true")
    ap.add_argument("--grad-acc", type=int, default=1)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = Net()
    opt = OPTIMIZERS[args.optim](model.parameters())
    if not args.no_monitor:
        start_monitor(args.config, model, opt, args.as_121, args.grad_acc)
    coef = torch.tensor([[1.0, -2.0]])
    for step in range(args.steps):
        opt.zero_grad()
        for micro in range(args.grad_acc):
            loss = (model(batch(step * args.grad_acc + micro)) * coef).sum() ** 2
            loss.backward()
            if args.grad_acc > 1:
                print(f"step {step} micro {micro} loss {loss.item()!r}", flush=True)
        opt.step()
        if args.grad_acc == 1:
            print(f"step {step} loss {loss.item()!r}", flush=True)


if __name__ == "__main__":
    main()
