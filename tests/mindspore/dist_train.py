"""One worker of a 2-rank MindSpore data-parallel training on CPU (dynamic cluster: run by
test_ms_distributed.py as a scheduler and two workers). Each rank trains on its own data; the
gradients are averaged with an AllReduce Primitive held by the model, and the initial weights are
broadcast from rank 0 with communication.comm_func. Prints the loss and the final weights.
argv: config.json (or "none": no probe), steps."""
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")
from mindspore.communication import GlobalComm, comm_func, get_group_size, get_rank, init  # noqa: E402

init()  # the scheduler process stays here until the workers are done, then exits

config, steps = sys.argv[1], int(sys.argv[2])
if config == "none":  # the same training without the probe
    class PrecisionDebugger:
        def __init__(self, **_): self.start = self.stop = self.step = lambda *a: None
else:
    from msprobe.mindspore import PrecisionDebugger
rank, size = get_rank(), get_group_size()
# comm_func binds its default group at import, before init() picks the CPU backend's group name.
WORLD = GlobalComm.WORLD_COMM_GROUP


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(rank)  # different on each rank until rank 0's is broadcast
        self.fc = nn.Dense(4, 2, weight_init=Tensor(rng.standard_normal((2, 4)).astype(np.float32)),
                           bias_init=Tensor(rng.standard_normal(2).astype(np.float32)))
        self.act = nn.Tanh()
        self.allreduce = ops.AllReduce()

    def construct(self, x):
        return ops.reduce_mean(self.act(self.fc(x)) ** 2)


net = Net()
debugger = PrecisionDebugger(config_path=config)
optimizer = nn.SGD(net.trainable_params(), learning_rate=0.1)
grad_fn = ms.value_and_grad(net, None, net.trainable_params())
x = Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4) * (rank + 1))
for step in range(steps):
    debugger.start(net)
    if step == 0:
        for p in net.trainable_params():
            p.set_data(comm_func.broadcast(p.value(), 0, group=WORLD))
    loss, grads = grad_fn(x)
    grads = tuple(net.allreduce(g) / size for g in grads)
    optimizer(grads)
    debugger.stop()
    debugger.step()
    print(f"loss {rank} {float(loss.asnumpy()):.6f}")
print("weights", rank, " ".join(f"{v:.6f}" for v in net.fc.weight.asnumpy().ravel()))
