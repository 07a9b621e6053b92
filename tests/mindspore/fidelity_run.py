"""Trains parity_net's network for a few steps and prints a digest of every loss, gradient and
final weight. argv: LEVEL (or "off") TASK. The digests must not depend on the probe."""
import hashlib
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")

from parity_net import Net, WithLoss  # noqa: E402

level, task = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
net = Net(rng)
loss_net = WithLoss(net)
optimizer = nn.Adam(net.trainable_params(), learning_rate=0.01)
grad_fn = ms.value_and_grad(loss_net, None, optimizer.parameters)
debugger = None
if level != "off":
    from msprobe.mindspore import PrecisionDebugger
    debugger = PrecisionDebugger(task=task, dump_path="./dump", level=level)
digest = hashlib.sha256()
for step in range(3):
    x = Tensor(rng.uniform(-1, 1, (5, 4)).astype(np.float32))
    target = Tensor(rng.uniform(0, 1, (5, 2)).astype(np.float32))
    if debugger:
        debugger.start(net)
    loss, grads = grad_fn(x, target)
    if debugger:
        debugger.stop()
    optimizer(grads)
    if debugger:
        debugger.step()
    digest.update(loss.asnumpy().tobytes())
    for g in grads:
        digest.update(g.asnumpy().tobytes())
for p in net.trainable_params():
    digest.update(p.asnumpy().tobytes())
print("DIGEST", digest.hexdigest())
