"""Trains ProbeTestNet for two steps with the probe off or at a level/task; saves losses and
every parameter gradient to OUT so a test can compare runs bit for bit.

    python fidelity_run.py OUT off|L0|L1|mix [statistics|tensor|md5]
"""
import json
import sys

import torch
import torch.nn.functional as F
from dump_models import ProbeTestNet, make_inputs

out_path, level = sys.argv[1], sys.argv[2]
task = sys.argv[3] if len(sys.argv) > 3 else "statistics"
debugger = None
if level != "off":
    from msprobe.pytorch import PrecisionDebugger
    cfg = {"task": "tensor" if task == "tensor" else "statistics", "dump_path": "./dump",
           "level": level, "statistics": {"summary_mode": "md5" if task == "md5" else "statistics"}}
    with open("config.json", "w") as f:
        json.dump(cfg, f)
    debugger = PrecisionDebugger(config_path="config.json")

torch.manual_seed(0)
model = ProbeTestNet()
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
result = {}
for step in range(2):
    x, y = make_inputs(seed=step)
    if debugger:
        debugger.start(model)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    result[f"loss{step}"] = loss.detach().clone()
    for n, p in model.named_parameters():
        result[f"grad{step}.{n}"] = p.grad.detach().clone()
    opt.step()
    if debugger:
        debugger.stop()
        debugger.step()
torch.save(result, out_path)
