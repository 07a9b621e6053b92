"""Small models for the dump tests: in-place ops, a module used twice, several outputs, keyword
arguments and slicing — the shapes of code a probe must not disturb."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHeads(nn.Module):
    """Returns a tuple (several outputs)."""

    def __init__(self, d):
        super().__init__()
        self.a = nn.Linear(d, d)
        self.b = nn.Linear(d, d)

    def forward(self, x):
        return self.a(x), self.b(x)


class ProbeTestNet(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.fc1 = nn.Linear(d, d)
        self.shared = nn.Linear(d, d)      # used twice per forward
        self.heads = TwoHeads(d)
        self.out_w = nn.Parameter(torch.randn(2, d) * 0.1)
        self.out_b = nn.Parameter(torch.zeros(2))

    def forward(self, x):
        h = self.fc1(x)
        h = torch.relu(h)
        h = h * 1.5
        h.add_(0.25)                        # in-place op on an intermediate
        h = self.shared(h)
        h = self.shared(torch.tanh(h))      # the same module again
        p, q = self.heads(h)
        y = torch.cat([p, q[:, : p.shape[1] // 2]], dim=1)[:, ::2]   # slicing
        return F.linear(y[:, :8] if y.shape[1] >= 8 else F.pad(y, (0, 8 - y.shape[1])),
                        weight=self.out_w, bias=self.out_b)          # keyword arguments


def make_inputs(seed=0, batch=4, d=8):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, d, generator=g), torch.randint(0, 2, (batch,), generator=g)
