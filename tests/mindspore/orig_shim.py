"""Lets the ORIGINAL msprobe 1.2.1 (written for MindSpore 2.4-2.5) import and run on the MindSpore
2.7+ that PyPI offers, on a CPU. Used only when producing the golden dumps; never by our package.

1. MindSpore 2.7 renamed mindspore.common.api._MindsporeFunctionExecutor to _JitExecutor; 1.2.1
   imports the old name (for its Jit capture) at import time.
2. 1.2.1 computes the L2 norm statistic with mint.norm when mindspore.mint has it; on CPU that
   kernel (LinalgVectorNorm) is not registered, so every statistic would fail. Without mint.norm
   1.2.1 falls back to ops.norm, which the CPU has. The values are the same L2 norm.
"""
import mindspore.common.api as _api
import mindspore.mint as _mint

if not hasattr(_api, "_MindsporeFunctionExecutor"):
    _api._MindsporeFunctionExecutor = _api._JitExecutor
if hasattr(_mint, "norm"):
    del _mint.norm
