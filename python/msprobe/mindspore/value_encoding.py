"""MindSpore values -> what the C++ encoder reads.

The core reads tensors through the buffer/DLPack protocols. A mindspore.Tensor has neither
`__dlpack__` nor the buffer protocol, so each tensor is handed over as:
  * `Tensor.asnumpy()` -- on CPU this is the tensor's own storage (no copy) after MindSpore has
    finished the pending kernels; a non-contiguous tensor comes back as a contiguous copy; on a
    device it is the host copy;
  * for bfloat16 (NumPy has no such dtype) a DLPack capsule from `Tensor.to_dlpack()`, taken after
    `asnumpy()` has synchronised the tensor, so that dump.json says "BFloat16" and the .npy file
    holds float32 (the original's rule).
Containers are rebuilt around the converted tensors; everything else passes through unchanged.

Reads are deferred. PyNative runs kernels asynchronously, and waiting for one from Python costs
about a millisecond (the runtime's queue threads have to wake up and drain), more than most
kernels; reading every tensor at once would also stop Python from running ahead of the kernels.
So a tensor is handed over as `Deferred(tensor)`: the core writes a placeholder and reads all
deferred tensors together (one wait) at most 64 values or 0.5 s later, at stop()/step(), when a
backward pass ends (before an optimizer can run), and before an in-place API or a Primitive with
side effects runs. The values are the same as an immediate read: a recorded tensor changes only
in place, and Parameters, which optimizers and BatchNorm update in place without a wrapped API,
are read at once.
"""
import dataclasses

import mindspore as ms
import numpy as np

try:
    from mindspore._c_expression.typing import Number as _MsNumber
except ImportError:  # pragma: no cover - very old or very new MindSpore
    _MsNumber = ()
try:
    from mindspore.common._stub_tensor import StubTensor as _StubTensor
    TENSOR_TYPES = (ms.Tensor, _StubTensor)
except ImportError:  # pragma: no cover
    TENSOR_TYPES = (ms.Tensor,)

MAX_DEPTH = 10
_CORE_KINDS = frozenset("biufc")  # bool, int, uint, float, complex (uint16+ refused below)
_UNSUPPORTED_NUMPY = frozenset(("uint16", "uint32", "uint64"))


class _DLPackTensor:
    """Presents a MindSpore tensor's DLPack export to the core (zero copy)."""
    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, *args, **kwargs):
        return self.tensor.to_dlpack()


class _Described:
    """A value the core cannot view; the fallback encoder describes it."""
    __slots__ = ("record",)

    def __init__(self, record):
        self.record = record


_UNREADABLE = _Described(None)


def tensor_for_core(t):
    try:
        a = t.asnumpy()
    except Exception:
        # PyNative runs kernels asynchronously: a kernel that failed (say, a dtype the device
        # lacks) raises here, at the first read. That error is the training script's, not ours:
        # record null for this value and let the script meet the error where it would have.
        return _UNREADABLE
    dt = a.dtype
    if dt.kind in _CORE_KINDS and dt.name not in _UNSUPPORTED_NUMPY:
        return a
    if t.dtype == ms.bfloat16:
        return _DLPackTensor(t)
    return _Described({"type": "mindspore.Tensor", "dtype": str(t.dtype), "shape": list(t.shape)})


class Deferred:
    """A tensor the core reads later, through the session's DeviceRecorder (device_stats.py:
    on an accelerator it keeps its progress in `state`)."""
    __slots__ = ("tensor", "state")

    def __init__(self, tensor):
        self.tensor = tensor
        self.state = None


_Parameter = ms.Parameter
DEVICE = None  # device_stats.MsDeviceRecorder on an accelerator (or forced), else None


def for_core(value, depth=0):
    """Returns `value` with every MindSpore tensor replaced by something the core can view (or
    will view: Deferred)."""
    if isinstance(value, TENSOR_TYPES):
        if isinstance(value, _Parameter):
            return tensor_for_core(value) if DEVICE is None else DEVICE.snapshot(value)
        return Deferred(value)
    if depth >= MAX_DEPTH:
        return value
    t = type(value)
    if t is tuple:
        return tuple(for_core(v, depth + 1) for v in value)
    if t is list:
        return [for_core(v, depth + 1) for v in value]
    if t is dict:
        return {k: for_core(v, depth + 1) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return t(*(for_core(v, depth + 1) for v in value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # 1.2.1 records a dataclass as a dict of its fields
        return {f: for_core(getattr(value, f, None), depth + 1) for f in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {k: for_core(v, depth + 1) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return _UNREADABLE  # 1.2.1 records NumPy arrays as null
    return value


def encode_ms_value(value, kwarg_name):
    """dump.json value for objects the core does not know (reference data-dump §3.3)."""
    if isinstance(value, _Described):
        return value.record
    if kwarg_name == "dtype" or (_MsNumber and isinstance(value, _MsNumber)):
        return {"type": "mindspore.dtype", "value": str(value)}
    return None  # 1.2.1: any other object (a Cell, a user class) is null


def to_host(value):
    """For views the core reports as device memory: a host copy."""
    if isinstance(value, _DLPackTensor):
        return _DLPackTensor(value.tensor.move_to("CPU"))
    return np.asarray(value)
