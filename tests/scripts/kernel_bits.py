"""Prints a hash of the bytes a linear layer outputs, to see whether a kernel setup (environment
variables that pick other CPU kernels) changes their low bits:

    python kernel_bits.py torch|mindspore

scripts/other_cpu.sh (run by scripts/run_tests.sh) runs it with and without the setup of
tests/tolerances.py (KERNEL_SETUP) before it reruns the tests whose goldens depend on the
kernels: if the hashes are equal, that second run would prove nothing. Shapes: those of the test
models (tests/parity, tests/overflow, tests/mindspore/parity_net.py) and a larger one; inputs from
NumPy's seeded generator (the same bits on every CPU), so only the layer's kernel can change the
output.
"""
import hashlib
import sys

import numpy as np

SHAPES = [(4, 8, 8), (4, 8, 4), (4, 2, 3), (16, 8, 8), (64, 256, 256)]  # (batch, in, out)


_RNG = np.random.default_rng(20250207)


def pattern(*shape):
    """Normal values, full float32 mantissas (products and sums round)."""
    return _RNG.standard_normal(shape).astype(np.float32)


def torch_outputs():
    import torch
    for b, k, n in SHAPES:
        with torch.no_grad():
            yield torch.nn.functional.linear(torch.from_numpy(pattern(b, k)), torch.from_numpy(pattern(n, k)),
                                             torch.from_numpy(pattern(n))).numpy()


def mindspore_outputs():
    import mindspore as ms
    from mindspore import Tensor, nn
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    for b, k, n in SHAPES:
        dense = nn.Dense(k, n, weight_init=Tensor(pattern(n, k)), bias_init=Tensor(pattern(n)))
        yield dense(Tensor(pattern(b, k))).asnumpy()


def main():
    framework = sys.argv[1]
    outputs = {"torch": torch_outputs, "mindspore": mindspore_outputs}[framework]()
    digest = hashlib.sha256()
    for y in outputs:
        digest.update(np.ascontiguousarray(y, dtype=np.float32).tobytes())
    print(f"{framework} linear output sha256 {digest.hexdigest()}")


if __name__ == "__main__":
    main()
