"""Real pairs for the first-divergence tests: a small transformers GPT-2 (built from a config, no
download) trained one step under our probe, as users bring them. The "bench" run is plain fp32;
the "npu" run may differ the way real runs do:
    --autocast bf16|fp16     the forward under CPU autocast (the most common pair there is)
    --fault gelu_scale       one call of the MLP's activation computed a few percent off
    --fault-call K           which call of it (0-based)
    --perturb NAME:REL       one parameter scaled by (1 + REL) before training (a weight loaded wrong)
    --change-input           one token id of the batch changed (a different batch)
    --model bn               a small conv net with BatchNorm instead (for --perturb-buffer)
    --perturb-buffer NAME:REL  one buffer scaled by (1 + REL) (e.g. BatchNorm running statistics)
    --no-model               start() without the model (L1: parameters cannot be named)
Usage: python real_pair.py DUMP_PATH [--task statistics|tensor|md5] [--level L1|mix|L0] [...]
       [--config CONFIG_JSON] (a scoped re-dump config; DUMP_PATH then unused)
Prints "loss L" per step."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from dump_config import write_dump_config

from msprobe.pytorch import PrecisionDebugger, seed_all


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    return GPT2LMHeadModel(config).eval()


class ConvBN(nn.Module):
    """A conv block with BatchNorm in eval mode: its running statistics are buffers that feed the
    forward without any recorded call producing them."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.1, 0.1)
            self.bn.running_var.uniform_(0.8, 1.2)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        return self.head(h.mean(dim=(2, 3)))


def inject_gelu_fault(call, scale=1.04):
    """One call of transformers' gelu_new (GPT-2's activation: torch.tanh inside) a few percent
    off, swapped before the probe wraps the API."""
    original = torch.tanh
    calls = [0]

    def faulty(x, *args, **kwargs):
        calls[0] += 1
        out = original(x, *args, **kwargs)
        return out * scale if calls[0] - 1 == call else out

    torch.tanh = faulty


def scale_named(tensors, spec):
    name, rel = spec.split(":")
    with torch.no_grad():
        tensors[name].mul_(1 + float(rel))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump_path")
    ap.add_argument("--task", default="statistics")
    ap.add_argument("--level", default="L1")
    ap.add_argument("--model", default="gpt2")
    ap.add_argument("--autocast", default=None)
    ap.add_argument("--fault", default="none")
    ap.add_argument("--fault-call", type=int, default=0)
    ap.add_argument("--perturb", default=None)
    ap.add_argument("--perturb-buffer", default=None)
    ap.add_argument("--change-input", action="store_true")
    ap.add_argument("--no-model", action="store_true")
    ap.add_argument("--config", default=None)
    a = ap.parse_args()
    seed_all(1234, mode=False)
    if a.fault == "gelu_scale":
        inject_gelu_fault(a.fault_call)
    model = gpt2() if a.model == "gpt2" else ConvBN().eval()
    if a.perturb:
        scale_named(dict(model.named_parameters()), a.perturb)
    if a.perturb_buffer:
        scale_named(dict(model.named_buffers()), a.perturb_buffer)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    cfg_path = a.config or write_dump_config(a.dump_path, a.task, a.level)
    debugger = PrecisionDebugger(config_path=cfg_path)
    g = torch.Generator().manual_seed(5)
    if a.model == "gpt2":
        batch = torch.randint(0, 64, (2, 16), generator=g)
        if a.change_input:
            batch[1, 7] = (batch[1, 7] + 1) % 64
    else:
        batch = torch.randn(2, 3, 8, 8, generator=g)
        if a.change_input:
            batch[1, 0, 2, 3] += 0.5
    debugger.start(None if a.no_model else model)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(a.autocast)
    with torch.autocast("cpu", dtype=dtype, enabled=dtype is not None):
        if a.model == "gpt2":
            loss = model(batch, labels=batch).loss
        else:
            loss = model(batch).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    debugger.stop()
    debugger.step()
    print("loss", float(loss))


if __name__ == "__main__":
    main()
