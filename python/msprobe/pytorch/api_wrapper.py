"""Patching torch APIs (Tensor, Torch, Functional, Distributed, VF) with thin recording wrappers
(msprobe/core/recorded_call.py), from the API catalogue (msprobe/core/api_catalogue.py).

A wrapper costs one attribute check when the probe is off. When on, it makes one call into the
C++ session before and one after the original, and hooks the backward of the output's autograd
node when the forward was collected.
"""
import functools

import torch

from msprobe.core import api_patcher
from msprobe.core.api_catalogue import default_path, load_api_catalogue
from msprobe.core.hook_guard import guarded
from msprobe.core.recorded_call import CallCapture, recording_wrapper
from msprobe.pytorch.hook_state import STATE
from msprobe.pytorch.module_backward import records_in_backward

SUPPORT_WRAP_OPS = default_path("pytorch")

# Kept for run_ut until it reads the catalogue from msprobe.core.api_catalogue.
load_api_list = functools.partial(load_api_catalogue, "pytorch")


def _first_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, (list, tuple)) and out:
        return _first_tensor(out[0])
    if isinstance(out, dict):
        for v in out.values():
            t = _first_tensor(v)
            if t is not None:
                return t
    return None


def _hook_backward(out, api_name, idx):
    t = _first_tensor(out)
    grad_fn = getattr(t, "grad_fn", None) if t is not None else None
    if grad_fn is None:
        return

    def record(session, grad_inputs, grad_outputs):
        session.api_backward(api_name, idx, grad_outputs, grad_inputs)

    grad_fn.register_hook(guarded(STATE, record, skip_when_busy=True))
    records_in_backward(grad_fn)


class TorchCall(CallCapture):
    """torch values go to the session as they are; the backward is hooked on the output's
    autograd node."""

    def after(self, api_name, idx, out, collected, backward):
        if collected:
            _hook_backward(out, api_name, idx)
        return out


class CollectiveCall(TorchCall):
    def settle(self, out, args, kwargs):
        # Collectives work in place: record the arguments after the call, and wait for
        # asynchronous work so that they hold the result.
        if hasattr(out, "wait"):
            out.wait()
        return tuple(args) + tuple(kwargs.values())


_CALL, _COLLECTIVE = TorchCall(), CollectiveCall()


def make_wrapper(original, api_name):
    capture = _COLLECTIVE if api_name.startswith("Distributed.") else _CALL
    wrapper = recording_wrapper(STATE, original, api_name, capture)
    wrapper.__msprobe_original__ = original
    return wrapper


class ApiPatcher(api_patcher.ApiPatcher):
    def __init__(self, api_list_path=None):
        super().__init__("pytorch", lambda section, dotted, original, api_name:
                         make_wrapper(original, api_name), api_list_path)
