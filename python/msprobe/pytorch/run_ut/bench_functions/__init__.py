"""References of the torch_npu fused operators run_ut can check without an NPU.

get_npu_function(name, benchmark): the CPU benchmark (called with upcast inputs) or the device-side
reference (kernel-like: float32 arithmetic for float16/bfloat16 inputs, outputs rounded to the
input dtype). `fast_gelu` (the name torch_npu 1.2.1-era dumps record) is an alias of
npu_fast_gelu.
"""
import functools

import torch

from msprobe.pytorch.run_ut.bench_functions import npu_ops
from msprobe.pytorch.run_ut.bench_functions.fusion_attention import (
    npu_fusion_attention_bench,
    npu_fusion_attention_device,
)

_HALF = (torch.float16, torch.bfloat16)

_REFERENCES = {
    "npu_apply_adam_w": npu_ops.npu_apply_adam_w,
    "npu_confusion_transpose": npu_ops.npu_confusion_transpose,
    "npu_fast_gelu": npu_ops.npu_fast_gelu,
    "fast_gelu": npu_ops.npu_fast_gelu,
    "npu_layer_norm_eval": npu_ops.npu_layer_norm_eval,
    "npu_linear": npu_ops.npu_linear,
    "npu_rms_norm": npu_ops.npu_rms_norm,
    "npu_rotary_mul": npu_ops.npu_rotary_mul,
    "npu_scaled_masked_softmax": npu_ops.npu_scaled_masked_softmax,
    "npu_swiglu": npu_ops.npu_swiglu,
}
# Outputs that the real operator returns as float32 whatever the input dtype.
_FLOAT32_OUTPUTS = {"npu_rms_norm": (1,)}
# Operators whose reference already models the kernel's half-precision behaviour.
_NATIVE_HALF = {"npu_swiglu", "npu_scaled_masked_softmax", "npu_confusion_transpose"}


def _first_tensor_dtype(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, torch.Tensor) and a.is_floating_point():
            return a.dtype
        if isinstance(a, (list, tuple)):
            for x in a:
                if isinstance(x, torch.Tensor) and x.is_floating_point():
                    return x.dtype
    return None


def _up(x):
    if isinstance(x, torch.Tensor) and x.dtype in _HALF:
        return x.float()
    if isinstance(x, (list, tuple)):
        return type(x)(_up(i) for i in x)
    return x


def _kernel_like(name, fn):
    keep32 = _FLOAT32_OUTPUTS.get(name, ())

    @functools.wraps(fn)
    def run(*args, **kwargs):
        dtype = _first_tensor_dtype(args, kwargs)
        if dtype not in _HALF:
            return fn(*args, **kwargs)
        out = fn(*_up(args), **{k: _up(v) for k, v in kwargs.items()})
        if isinstance(out, torch.Tensor):
            return out.to(dtype)
        return type(out)(o.to(dtype) if isinstance(o, torch.Tensor) and o.is_floating_point()
                         and i not in keep32 else o for i, o in enumerate(out))
    return run


def get_npu_function(name, benchmark):
    """The reference for NPU.<name>, or None when there is none."""
    if name == "npu_fusion_attention":
        return npu_fusion_attention_bench if benchmark else npu_fusion_attention_device
    fn = _REFERENCES.get(name)
    if fn is None or benchmark or name in _NATIVE_HALF:
        return fn
    return _kernel_like(name, fn)
