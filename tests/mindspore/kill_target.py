"""Runs forward/backward passes forever inside one start() (no stop, so nothing is flushed by
the API) and appends "i time" to PROGRESS after each iteration; the test kills it with -9."""
import os
import sys
import time

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, ops

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")
from msprobe.mindspore import PrecisionDebugger  # noqa: E402

progress = open(sys.argv[1], "a", buffering=1)
debugger = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
w = Parameter(Tensor(np.ones((16, 16), np.float32)), name="w")


def f(x):
    return ops.matmul(x, w).sum()


grad_fn = ms.grad(f, None, [w])
debugger.start()
i = 0
while True:
    grad_fn(Tensor(np.full((8, 16), 0.01 * i, np.float32)))
    progress.write(f"{i} {time.time()}\n")
    os.fsync(progress.fileno())
    i += 1
    time.sleep(0.01)
