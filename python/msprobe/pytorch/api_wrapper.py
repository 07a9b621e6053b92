"""Patching torch APIs (Tensor, Torch, Functional, Distributed) with thin recording wrappers.

A wrapper costs one attribute check when the probe is off. When on, it makes one call into the
C++ session before and one after the original, and hooks the backward of the output's autograd
node when the forward was collected.
"""
import functools
import os

import torch
import yaml

from msprobe.core import log
from msprobe.pytorch.hook_state import STATE

SUPPORT_WRAP_OPS = os.path.join(os.path.dirname(__file__), "support_wrap_ops.yaml")

# yaml key → (entry prefix, objects whose attributes are patched)
def _targets():
    dist_targets = []
    if torch.distributed.is_available():
        import torch.distributed.distributed_c10d as c10d
        dist_targets = [torch.distributed, c10d]
    return {
        "tensor": ("Tensor", [torch.Tensor]),
        "torch": ("Torch", [torch]),
        "functional": ("Functional", [torch.nn.functional]),
        "distributed": ("Distributed", dist_targets),
        "_VF": ("VF", [torch._VF]),
    }


def load_api_list(path=SUPPORT_WRAP_OPS):
    """Reads the editable API list; returns {yaml key: [names]} with a clear error when malformed."""
    try:
        with open(path) as f:
            # libyaml when PyYAML has it: the pure-Python loader takes most of a second here.
            data = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as e:
        raise ValueError(f"{path}: cannot read the supported API list: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the supported API list must map categories to lists of names")
    for key, names in data.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError(f"{path}: '{key}' must be a list of API names (strings)")
    return data


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

    def backward_hook(grad_inputs, grad_outputs):
        state = STATE
        if state.session is None or state.busy:
            return None
        state.busy = True
        try:
            state.session.api_backward(api_name, idx, grad_outputs, grad_inputs)
        except Exception as e:  # never break training
            state.on_error(e)
        finally:
            state.busy = False
        return None

    grad_fn.register_hook(backward_hook)


def make_wrapper(original, api_name):
    state = STATE
    distributed = api_name.startswith("Distributed.")

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        if not state.active or state.busy:
            return original(*args, **kwargs)
        session = state.session
        state.busy = True
        try:
            idx = session.api_pre(api_name, args, kwargs)
        except Exception as e:
            state.on_error(e)
            idx = -1
        try:
            out = original(*args, **kwargs)
            recorded = out
            if distributed:
                # Collectives work in place: record the arguments after the call, and wait for
                # asynchronous work so that they hold the result.
                if idx >= 0 and hasattr(out, "wait"):
                    out.wait()
                recorded = list(args) + list(kwargs.values())
        finally:
            state.busy = False
        if idx < 0:
            return out
        state.busy = True
        try:
            if session.api_post(api_name, idx, recorded):
                _hook_backward(out, api_name, idx)
        except Exception as e:
            state.on_error(e)
        finally:
            state.busy = False
        return out

    wrapper.__msprobe_original__ = original
    return wrapper


class ApiPatcher:
    """Installs and removes the wrappers; remembers the originals."""

    def __init__(self, api_list_path=SUPPORT_WRAP_OPS):
        self.api_list_path = api_list_path
        self.originals = []  # (owner, attr, original)
        self.installed = False

    def install(self):
        if self.installed:
            return
        api_list = load_api_list(self.api_list_path)
        targets = _targets()
        for key, names in api_list.items():
            if key not in targets:
                continue
            prefix, owners = targets[key]
            for name in names:
                for owner in owners:
                    self._patch(owner, name, f"{prefix}.{name}")
        self.installed = True

    def _patch(self, owner, dotted, api_name):
        parts = dotted.split(".")
        for p in parts[:-1]:
            owner = getattr(owner, p, None)
            if owner is None:
                return
        attr = parts[-1]
        original = getattr(owner, attr, None)
        if not callable(original) or hasattr(original, "__msprobe_original__"):
            return
        try:
            setattr(owner, attr, make_wrapper(original, api_name))
        except (AttributeError, TypeError):
            log.warning(f"cannot wrap {api_name}; it is not dumped")
            return
        self.originals.append((owner, attr, original))

    def uninstall(self):
        for owner, attr, original in reversed(self.originals):
            setattr(owner, attr, original)
        self.originals.clear()
        self.installed = False
