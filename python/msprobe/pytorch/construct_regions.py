"""mix level: APIs run inside optimizer.step() or a clip-grad function get the parent
"optimizer" / "clip_grad" in construct.json instead of a module (reference data-dump §3.6)."""
import functools

import torch

from msprobe.pytorch.hook_state import STATE

CLIP_GRAD_FUNCTIONS = ("clip_grad_norm_", "clip_grad_norm", "clip_grad_value_")


def _enter(region):
    if STATE.session is not None:
        STATE.session.enter_region(region)


def _exit(region):
    if STATE.session is not None:
        STATE.session.exit_region(region)


def _wrap_region(fn, region):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _enter(region)
        try:
            return fn(*args, **kwargs)
        finally:
            _exit(region)
    wrapper.__msprobe_region__ = True
    return wrapper


class ConstructRegions:
    def __init__(self):
        self.handles = []
        self.patched = []

    def install(self):
        from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook
        self.handles.append(register_optimizer_step_pre_hook(lambda *a: _enter("optimizer")))
        self.handles.append(register_optimizer_step_post_hook(lambda *a: _exit("optimizer")))
        for name in CLIP_GRAD_FUNCTIONS:
            for owner in (torch.nn.utils, torch.nn.utils.clip_grad):
                fn = getattr(owner, name, None)
                if fn is not None and not getattr(fn, "__msprobe_region__", False):
                    setattr(owner, name, _wrap_region(fn, "clip_grad"))
                    self.patched.append((owner, name, fn))

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles.clear()
        for owner, name, fn in reversed(self.patched):
            setattr(owner, name, fn)
        self.patched.clear()
