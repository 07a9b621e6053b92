"""Demo: a small decoder trained for a few steps on CPU with msprobe dumping at level mix.

    python examples/demo_train.py [--dump-path ./demo_dump] [--level mix] [--task statistics]
"""
import argparse
import subprocess
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from msprobe.pytorch import PrecisionDebugger, seed_all


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x, mask):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TinyGPT(nn.Module):
    def __init__(self, vocab=64, d=32, heads=2, layers=2, seq=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(seq, d))
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):
        seq = idx.shape[1]
        mask = torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)
        x = self.embed(idx) + self.pos[:seq]
        for b in self.blocks:
            x = b(x, mask)
        return self.head(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump-path", default="./demo_dump")
    ap.add_argument("--level", default="mix")
    ap.add_argument("--task", default="statistics")
    ap.add_argument("--steps", type=int, default=3)
    a = ap.parse_args()

    seed_all(seed=1234, mode=False, rm_dropout=True)
    model = TinyGPT()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    debugger = PrecisionDebugger(task=a.task, dump_path=a.dump_path, level=a.level)
    gen = torch.Generator().manual_seed(0)
    for step in range(a.steps):
        idx = torch.randint(0, 64, (4, 16), generator=gen)
        debugger.start(model)
        logits = model(idx[:, :-1].contiguous())
        loss = F.cross_entropy(logits.reshape(-1, 64), idx[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        debugger.stop()
        debugger.step()
        print(f"step {step}: loss {loss.item():.4f}")
    print(f"\nDump written to {a.dump_path}")
    sys.exit(subprocess.call([sys.executable, "-m", "msprobe.cli", "summary", a.dump_path]))


if __name__ == "__main__":
    main()
