"""The perturbations of free_benchmark on MindSpore (1.2.1's pert_mode values there), with
MindSpore ops on the tensor's own device. perturbed_call() returns the arguments of the second
run, or None when nothing could be perturbed (1.2.1 then does not compare)."""
import mindspore as ms
import numpy as np
from mindspore import ops

from msprobe.mindspore.value_encoding import TENSOR_TYPES

# The value added by add_noise, per dtype; also the floor below which a tensor is too small to
# perturb (1.2.1's PERT_VALUE_DICT).
NOISE = {ms.bfloat16: 1e-4, ms.float16: 1e-6, ms.float32: 1e-8, ms.float64: 1e-16}
# bit_noise flips the lowest bit through an integer view of the same width (no bfloat16 on
# MindSpore, as in 1.2.1).
BIT_VIEW = {ms.float16: ms.int16, ms.float32: ms.int32, ms.float64: ms.int64}
_SMALLEST_NORMAL = {ms.float16: np.finfo(np.float16).smallest_normal,
                    ms.float32: np.finfo(np.float32).smallest_normal,
                    ms.float64: np.finfo(np.float64).smallest_normal}
LOW_PRECISION = (ms.float16, ms.bfloat16)


def is_float_tensor(value):
    return isinstance(value, TENSOR_TYPES) and ops.is_floating_point(value)


def first_valid_index(args):
    """1.2.1's argument to perturb: the first floating tensor, or the first list, tuple or dict."""
    for i, a in enumerate(args):
        if isinstance(a, TENSOR_TYPES):
            if ops.is_floating_point(a):
                return i
            continue
        if isinstance(a, (list, tuple, dict)):
            return i
    return -1


def _large_enough(t, several):
    """1.2.1 skips a tensor whose largest magnitude is below the dtype's floor. For a lone tensor
    the skip changes nothing (the noise applies only above the floor's square root), so the host
    read is made only when a later tensor of a sequence could be chosen instead."""
    if t.dtype not in NOISE or t.size == 0:
        return False
    return not several or float(ops.max(ops.abs(t))[0].asnumpy()) >= NOISE[t.dtype]


def _add_noise(t):
    eps = NOISE[t.dtype]
    return ops.where(ops.abs(t) > eps ** 0.5, ops.add(ms.Tensor(eps, t.dtype), t), t)


def _bit_check(t, several):
    return t.dtype in BIT_VIEW and _large_enough(t, several)


def _bit_noise(t):
    bits = t.view(BIT_VIEW[t.dtype])
    flipped = ops.bitwise_xor(bits, ops.ones_like(bits))
    tiny = ms.Tensor(_SMALLEST_NORMAL[t.dtype], t.dtype)
    return ops.where(ops.abs(t) > tiny, flipped, bits).view(t.dtype)


def _change_value_check(t, several):
    shape = t.shape
    if len(shape) == 1:
        return shape[0] > 1
    return len(shape) > 1 and shape[1] > 0 and (shape[0] > 1 or shape[1] > 1)


def _change_value(t):
    out = t.copy()
    if len(t.shape) == 1:
        out[0], out[-1] = t[-1], t[0]
    else:  # [0][0] and [-1][-1]: elements of a matrix, rows of a 3-d tensor, ...
        out[0][0] = t[-1][-1]
        out[-1][-1] = t[0][0]
    return out


_ONE_ARG = {
    "add_noise": (_add_noise, _large_enough, list),  # 1.2.1 makes a tuple a list here
    "bit_noise": (_bit_noise, _bit_check, None),
    "change_value": (_change_value, _change_value_check, None),
}


class _Once:
    """Perturbs only the first tensor that qualifies (1.2.1's is_fuzzed)."""

    def __init__(self, fn, check, sequence_type):
        self.fn, self.check, self.sequence_type = fn, check, sequence_type
        self.done = False

    def __call__(self, value, several):
        if isinstance(value, TENSOR_TYPES):
            if self.done or not ops.is_floating_point(value) or not self.check(value, several):
                return value
            self.done = True
            return self.fn(value)
        if isinstance(value, dict):
            return {k: self(v, several) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return (self.sequence_type or type(value))([self(v, True) for v in value])
        return value


def _raise_precision(value, changed):
    if isinstance(value, TENSOR_TYPES):
        if ops.is_floating_point(value) and value.dtype in LOW_PRECISION:
            changed.append(True)
            return value.astype(ms.float32)
        return value
    if isinstance(value, dict):
        return {k: _raise_precision(v, changed) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)([_raise_precision(v, changed) for v in value])
    return value


def perturbed_call(mode, args, kwargs):
    """(args, kwargs) of the second run under pert_mode `mode`, or None when nothing changes."""
    if mode == "improve_precision":
        changed = []
        new_args = _raise_precision(tuple(args), changed)
        new_kwargs = _raise_precision(dict(kwargs), changed)
        return (new_args, new_kwargs) if changed else None
    i = first_valid_index(args)
    if i < 0:
        return None
    if mode == "no_change":
        return tuple(args), dict(kwargs)
    once = _Once(*_ONE_ARG[mode])
    value = once(args[i], False)
    if not once.done:
        return None
    return tuple(args[:i]) + (value,) + tuple(args[i + 1:]), dict(kwargs)
