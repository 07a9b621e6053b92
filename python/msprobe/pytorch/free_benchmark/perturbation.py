"""The perturbations of free_benchmark (1.2.1's pert_mode values), with torch ops on the tensor's
own device. Each takes the call's arguments and returns the arguments of the second run, or None
when there is nothing to perturb (the call is then not run again)."""
import torch

# The value added by add_noise, per dtype; it is also the floor below which a tensor is too small
# to perturb (1.2.1's PERTURBATION_VALUE_DICT / ABS_TOL_VALUE_DICT).
NOISE = {torch.bfloat16: 1e-4, torch.float16: 1e-6, torch.float32: 1e-8, torch.float64: 1e-16}
# bit_noise flips the lowest bit through an integer view of the same width.
BIT_VIEW = {torch.bfloat16: torch.int16, torch.float16: torch.int16, torch.float32: torch.int32,
            torch.float64: torch.int64}
LOW_PRECISION = (torch.float16, torch.bfloat16)


def first_valid_index(args):
    """1.2.1's choice of the argument to perturb: the first floating tensor (not meta), or the first
    list, tuple or dict; -1 when there is none."""
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            if a.is_meta or not torch.is_floating_point(a):
                continue
            return i
        if isinstance(a, (list, tuple, dict)):
            return i
    return -1


class _Once:
    """Perturbs only the first tensor that qualifies (1.2.1's is_added)."""

    def __init__(self, fn, check):
        self.fn = fn
        self.check = check
        self.done = False

    def __call__(self, value, several):
        if isinstance(value, torch.Tensor):
            if self.done or not torch.is_floating_point(value) or not self.check(value, several):
                return value
            self.done = True
            return self.fn(value)
        if isinstance(value, dict):
            return {k: self(v, several) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)([self(v, True) for v in value])
        return value


def _large_enough(t, several):
    """1.2.1 skips a tensor whose largest magnitude is below the dtype's floor. For a lone tensor the
    skip changes nothing (the noise applies only above the square root of that floor), so the host
    read is made only when a later tensor of a sequence could be chosen instead."""
    if t.dtype not in NOISE or t.numel() == 0:
        return False
    if not several:
        return True
    return bool(t.detach().abs().max() >= NOISE[t.dtype])


def _add_noise(t):
    eps = NOISE[t.dtype]
    # A 0-dim tensor of t's dtype: the noise rounded to that dtype, broadcast without a full copy.
    noise = torch.tensor(eps, dtype=t.dtype, device=t.device)
    return torch.where(t.abs() > eps ** 0.5, t + noise, t)


def _bit_noise(t):
    """The lowest bit flipped where |t| is above the smallest normal: bits ^ (|t| > tiny), in one
    buffer: |t| > tiny is written in place as 1.0 / 0.0 of t's dtype, whose bit pattern shifted
    right by (width - 3) is 1 / 0 (1.0 is 0b0011... in every IEEE width), then xor-ed with t's
    bits. Half the passes and allocations of the plain expression; the same bits."""
    view_dtype = BIT_VIEW[t.dtype]
    flip = torch.abs(t.detach())
    flip.gt_(torch.finfo(t.dtype).smallest_normal)
    flip_bits = flip.view(view_dtype)
    flip_bits.bitwise_right_shift_(t.element_size() * 8 - 3)
    flip_bits.bitwise_xor_(t.detach().view(view_dtype))
    return flip


def _bit_check(t, several):
    return t.dtype in BIT_VIEW and _large_enough(t, several)


def _change_value_check(t, several):
    if t.ndim > 1:
        return not (t.size(1) == 0 or (t.size(1) < 2 and t.size(0) < 2))
    return t.dim() != 0 and t.size(0) >= 2


def _change_value(t):
    out = t.clone()
    if out.ndim == 1:
        first, last = out[0].clone(), out[-1].clone()
        out[0], out[-1] = last, first
    else:
        first, last = out[0][0].clone(), out[-1][-1].clone()
        out[0][0] = last
        out[-1][-1] = first
    return out


_ONE_ARG = {
    "add_noise": (_add_noise, _large_enough),
    "bit_noise": (_bit_noise, _bit_check),
    "change_value": (_change_value, _change_value_check),
}


def _convert(value, fn):
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, dict):
        return {k: _convert(v, fn) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)([_convert(v, fn) for v in value])
    return value


def _to_fp32(t):
    return t.to(torch.float32) if t.dtype in LOW_PRECISION else t


def _to_cpu(t):
    t = t.detach().to("cpu")
    return t.to(torch.float32) if t.dtype in LOW_PRECISION else t


def perturbed_call(mode, args, kwargs, backward=False):
    """(args, kwargs) of the second run under pert_mode `mode`, or None when nothing changes (then
    1.2.1 does not compare). kwargs come back as a new dict with inplace=False."""
    if mode in _ONE_ARG:
        i = first_valid_index(args)
        if i < 0:
            return None
        once = _Once(*_ONE_ARG[mode])
        value = once(args[i], False)
        new_args = tuple(args[:i]) + (value,) + tuple(args[i + 1:])
        new_kwargs = dict(kwargs)
    elif mode == "no_change":
        if first_valid_index(args) < 0:
            return None
        new_args, new_kwargs = tuple(args), dict(kwargs)
    elif mode == "improve_precision":
        changed = []

        def up(t):
            if torch.is_floating_point(t) and t.dtype in LOW_PRECISION:
                changed.append(True)
                return t.to(torch.float32)
            return t
        new_args = _convert(tuple(args), up)
        new_kwargs = {} if backward else _convert(dict(kwargs), up)
        if not changed:
            return None
    elif mode == "to_cpu":
        new_args = _convert(tuple(args), _to_cpu)
        new_kwargs = _convert(dict(kwargs), _to_cpu)
    else:
        raise ValueError(f"unknown pert_mode {mode}")
    if "inplace" in new_kwargs:
        new_kwargs["inplace"] = False
    return new_args, new_kwargs


def cpu_call(args, kwargs):
    """The arguments on the CPU with fp16 and bf16 raised to fp32 (to_cpu, the preheat's check)."""
    return _convert(tuple(args), _to_cpu), _convert(dict(kwargs), _to_cpu)
