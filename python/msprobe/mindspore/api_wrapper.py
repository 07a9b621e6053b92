"""Wrapping MindSpore APIs (Tensor methods, ops, mint, mint.nn.functional, comm_func) for
levels L1 and mix, from the API catalogue (msprobe/core/api_catalogue.py) with the core's
patcher and recorded call; what is MindSpore's own is here and in recorded_call.py.

A wrapper costs one attribute check while the probe is off. While on, it makes one call into the
C++ session before the API and one after it; under a gradient recording it also passes the
call's tensor inputs and outputs through a backward-capture primitive (see backward.py). Tensors
are read later (value_encoding.py), except before an in-place API runs.
"""
import functools

from msprobe.core import api_patcher
from msprobe.core.api_catalogue import default_path, load_api_catalogue
from msprobe.core.recorded_call import recording_wrapper
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.recorded_call import MsCall

SUPPORT_WRAP_OPS = default_path("mindspore")
load_api_list = functools.partial(load_api_catalogue, "mindspore")


def is_inplace(section, name):
    """APIs that modify an argument in place: their arguments must stay the caller's objects, so
    no backward capture is attached to them (it would hand the API copies)."""
    short = name.rsplit(".", 1)[-1]
    if short == "__setitem__" or (short.startswith("__i") and short.endswith("__")
                                   and short not in ("__index__", "__int__", "__invert__")):
        return True
    if short.endswith("_") and not short.endswith("__"):
        return True
    if section == "ops" and (short.startswith("assign") or short.startswith("scatter")):
        return True
    return False


# In-place APIs: their arguments are read before they change, and get no backward capture (it
# would hand the API copies).
_CALL, _INPLACE = MsCall(), MsCall(read_first=True, backward=False)


def make_wrapper(original, api_name, inplace):
    return recording_wrapper(STATE, original, api_name, _INPLACE if inplace else _CALL)


def _wait_comm(original, api_name):
    """comm_func with async_op: wait for the result before it is recorded."""
    @functools.wraps(original)
    def call(*args, **kwargs):
        out = original(*args, **kwargs)
        if STATE.active and (kwargs.get("async_op") or api_name.endswith((".isend", ".irecv"))):
            handle = out[1] if isinstance(out, tuple) and len(out) == 2 else out
            if hasattr(handle, "wait"):
                handle.wait()
        return out
    return call


def _make_wrapper(section, dotted, original, api_name):
    target = _wait_comm(original, api_name) if section == "communication.comm_func" else original
    return make_wrapper(target, api_name, is_inplace(section, dotted))


class ApiPatcher(api_patcher.ApiPatcher):
    def __init__(self, api_list_path=None):
        super().__init__("mindspore", _make_wrapper, api_list_path)
