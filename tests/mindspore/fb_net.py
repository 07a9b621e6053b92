"""A small MindSpore PyNative training run for free_benchmark, runnable by msprobe 1.2.1 and by ours:

    python fb_net.py CONFIG_JSON [--steps N] [--dtype float32|float16] [--no-probe]

Each step: mint.nn.functional.linear and mint.nn.functional.relu on positive values, mint.mul
and mint.mean (all well-conditioned; in float16, linear rounds its product before adding the
bias, so fix's float32 result moves the hidden layer), and mint.sub of nearly equal numbers
(ill-conditioned: 4096 minus 4096 less one or two ulps; one ulp more on 4096 changes the result
by half or all of it), a gradient by ms.value_and_grad and an SGD step after stop(). Prints one
JSON line per step: the loss (repr) and the SHA-256 of the hidden layer (relu's output), and at
the end the SHA-256 of every parameter. With MSPROBE_ORIGINAL_SHIM=1 it first applies
orig_shim.py (1.2.1 on the MindSpore that PyPI offers).
"""
import argparse
import hashlib
import json
import os
import sys

import numpy as np

if os.environ.get("MSPROBE_ORIGINAL_SHIM") == "1":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import orig_shim  # noqa: F401

import mindspore as ms  # noqa: E402
from mindspore import Parameter, Tensor, mint, nn  # noqa: E402

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--steps", type=int, default=2)
p.add_argument("--dtype", default="float32")
p.add_argument("--no-probe", action="store_true")
a = p.parse_args()

dtype = getattr(ms, a.dtype)
rng = np.random.RandomState(0)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(rng.uniform(0.5, 1.5, (4, 32)).astype(np.float32)).astype(dtype), name="w")
        self.b = Parameter(Tensor(rng.uniform(0.5, 1.5, (4,)).astype(np.float32)).astype(dtype), name="b")

    def construct(self, x, big, ref):
        h = mint.nn.functional.relu(mint.nn.functional.linear(x, self.w, self.b))
        cancel = mint.sub(big, ref)
        return mint.mean(mint.mul(h, cancel)), h


net = Net()
opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
grad_fn = ms.value_and_grad(net, None, opt.parameters, has_aux=True)
np_dtype = np.float16 if a.dtype == "float16" else np.float32
xs = [Tensor(rng.uniform(0.1, 1.0, (5, 32)).astype(np_dtype)) for _ in range(a.steps)]
big = np.full((5, 4), 4096.0, np_dtype)
ulp = np.spacing(np_dtype(4096.0))
ref = big - ulp * rng.randint(1, 3, (5, 4)).astype(np_dtype)
big_t, ref_t = Tensor(big), Tensor(ref)

debugger = None
if not a.no_probe:
    from msprobe.mindspore import PrecisionDebugger
    debugger = PrecisionDebugger(config_path=a.config)

for step in range(a.steps):
    if debugger:
        debugger.start()
    (loss, h), grads = grad_fn(xs[step], big_t, ref_t)
    if debugger:
        debugger.stop()
        debugger.step()
    opt(grads)
    print(json.dumps({"step": step, "loss": repr(float(loss.asnumpy())),
                      "hidden": hashlib.sha256(h.asnumpy().tobytes()).hexdigest()}), flush=True)

digest = {p.name: hashlib.sha256(p.asnumpy().tobytes()).hexdigest() for p in net.trainable_params()}
print(json.dumps({"params": digest}), flush=True)
