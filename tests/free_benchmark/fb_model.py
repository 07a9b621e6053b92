"""A small training run for free_benchmark, runnable by msprobe 1.2.1 and by ours:

    python fb_model.py CONFIG_JSON [--steps N] [--pg] [--opt-inside] [--dtype float32|float16|bfloat16]
                       [--dropout] [--no-probe]

Each step: a linear layer, ReLU, a second linear layer (well-conditioned), plus a subtraction
of nearly equal numbers (ill-conditioned: Torch.sub), an MSE loss, backward and an SGD step
(inside start/stop with --opt-inside, after stop otherwise). --pg starts a one-process gloo
group first (1.2.1 writes no rows without one on torch 2.x). Prints one JSON line per step:
the loss (repr), and at the end the SHA-256 of every parameter and gradient.
"""
import argparse
import hashlib
import json
import os

import torch

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--steps", type=int, default=2)
p.add_argument("--pg", action="store_true")
p.add_argument("--opt-inside", action="store_true")
p.add_argument("--dtype", default="float32")
p.add_argument("--dropout", action="store_true")
p.add_argument("--no-probe", action="store_true")
a = p.parse_args()

if a.pg:
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
    dist.init_process_group("gloo", rank=0, world_size=1)

dtype = getattr(torch, a.dtype)
torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)
        self.drop = torch.nn.Dropout(0.5) if a.dropout else None

    def forward(self, x):
        h = torch.nn.functional.relu(self.fc1(x))
        if self.drop is not None:
            h = self.drop(h)
        y = self.fc2(h)
        # 4096 + one ulp minus 4096: flipping the lowest bit of the first operand wipes it out.
        big = torch.full_like(y, 4096.0) + y.detach().abs() * 0 + torch.finfo(y.dtype).eps * 4096
        cancel = torch.sub(big, torch.full_like(y, 4096.0))
        return y + cancel


model = Net().to(dtype)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
gen = torch.Generator().manual_seed(1)
xs = [torch.randn(5, 8, generator=gen).to(dtype) for _ in range(a.steps)]
ys = [torch.randn(5, 4, generator=gen).to(dtype) for _ in range(a.steps)]

debugger = None
if not a.no_probe:
    from msprobe.pytorch import PrecisionDebugger
    debugger = PrecisionDebugger(config_path=a.config)

for step in range(a.steps):
    if debugger:
        debugger.start()
    loss = torch.nn.functional.mse_loss(model(xs[step]), ys[step])
    loss.backward()
    if a.opt_inside:
        opt.step()
    if debugger:
        debugger.stop()
    if not a.opt_inside:
        opt.step()
    grads = {n: hashlib.sha256(q.grad.float().numpy().tobytes()).hexdigest() for n, q in model.named_parameters()}
    opt.zero_grad()
    if debugger:
        debugger.step()
    print(json.dumps({"step": step, "loss": repr(loss.item()), "grads": grads}), flush=True)
params = {n: hashlib.sha256(q.detach().float().numpy().tobytes()).hexdigest() for n, q in model.named_parameters()}
print(json.dumps({"params": params}), flush=True)
