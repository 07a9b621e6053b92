"""A tensor dump of APIs whose autograd nodes pass on several gradients, in orders of their own
(linear on a matrix: AddmmBackward gives bias, input, weight^T), with inputs that do and do not
require grad: test_backward_replay.py replays every backward entry.

    python backward_ops.py DUMP_PATH"""
import sys

import torch
import torch.nn.functional as F

from msprobe.pytorch import PrecisionDebugger, seed_all

seed_all(1234, mode=False)
debugger = PrecisionDebugger(task="tensor", dump_path=sys.argv[1], level="L1", step=[0])
g = torch.Generator().manual_seed(3)
x = torch.randn(6, 4, generator=g)                      # no grad
w = torch.randn(5, 4, generator=g, requires_grad=True)
b = torch.randn(5, generator=g, requires_grad=True)
a = torch.randn(6, 5, generator=g, requires_grad=True)
debugger.start()
y = F.linear(x, w, b)                                   # AddmmBackward: bias, None, weight^T
z = torch.mul(a, y)
parts = torch.split(torch.cat([z, a], 0), 4)            # one node, several outputs
top, _ = torch.topk(parts[0], 2, dim=1)
h = F.layer_norm(torch.matmul(parts[1], w), (4,))
loss = torch.sum(top) + torch.sum(torch.tanh(h))
loss.backward()
debugger.stop()
debugger.step()
