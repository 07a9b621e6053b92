"""Runs forward/backward passes forever inside one start() (no stop, so nothing is flushed by
the API) and appends "i time" to PROGRESS after each iteration; the test kills it with -9."""
import os
import sys
import time

import torch

from msprobe.pytorch import PrecisionDebugger

progress = open(sys.argv[1], "a", buffering=1)
debugger = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
w = torch.randn(64, 64, requires_grad=True)
debugger.start()
i = 0
while True:
    x = torch.randn(32, 64)
    y = torch.nn.functional.linear(x, w)
    y.sum().backward()
    progress.write(f"{i} {time.time()}\n")
    os.fsync(progress.fileno())
    i += 1
    time.sleep(0.01)
