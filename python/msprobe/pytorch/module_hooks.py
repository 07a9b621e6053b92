"""Module hooks for levels L0 and mix (msprobe/core/tree_hooks.py), with what is PyTorch's own: a
module's backward is read off the autograd graph (module_backward.py), not through torch's full
backward hooks, whose extra node changes the order in which gradients are summed, and so training."""
from collections.abc import Mapping

import torch

from msprobe.core.hook_guard import run_guarded
from msprobe.core.tree_hooks import TreeHooks
from msprobe.pytorch.hook_state import STATE
from msprobe.pytorch.module_backward import BackwardWatch


def _contained(fn, *args):
    """Backward bookkeeping (adding gradients up) as a hook body: not recorded, and an error
    disables the probe, never the training."""
    run_guarded(STATE, fn, *args)


def _attribute_names(output):
    """(name, value) of an output object's attributes in dir() order. For a mapping whose items are
    also instance attributes (transformers' ModelOutput) only those items: reading every property
    of such an object runs deprecated aliases that log warnings, or raise."""
    if isinstance(output, Mapping):
        fields = getattr(output, "__dict__", {})
        return [(k, fields[k]) for k in sorted(k for k in output.keys() if isinstance(k, str) and k in fields)]
    items = []
    for attr in dir(output):
        try:
            items.append((attr, getattr(output, attr)))
        except Exception:  # noqa: BLE001  a property of a user object may raise anything
            continue
    return items


def _attribute_tensors(output):
    """The tensors of an output that is neither a tensor nor a tuple: each attribute that is a
    tensor or a tuple of tensors, in dir() order, as 1.2.1 hooks them, so that such a module gets
    its backward entry."""
    tensors = []
    for _, item in _attribute_names(output):
        if isinstance(item, torch.Tensor):
            tensors.append(item)
        elif isinstance(item, tuple) and all(isinstance(v, torch.Tensor) for v in item):
            tensors.extend(item)
    return tensors


class ModuleHooks(TreeHooks):
    KIND = "Module"

    def __init__(self):
        super().__init__(STATE)

    def named_children(self, model):
        return model.named_modules()

    def attach(self, module, pre_forward, post_forward, pre_backward, post_backward):
        watch = BackwardWatch(pre_backward, post_backward, _contained, _attribute_tensors)

        def forward_begins(mod, args):
            _contained(watch.forward_begins, args)
            pre_forward(mod, args)

        def forward_ends(mod, args, kwargs, output):
            post_forward(mod, args, kwargs, output)
            _contained(watch.forward_ends, mod, output)

        return (module.register_forward_pre_hook(forward_begins),
                module.register_forward_hook(forward_ends, with_kwargs=True))

    def recorded_parameters(self, module):
        return module._parameters

    def grad_parameters(self, module):
        return [(n, p) for n, p in module.named_parameters(recurse=False) if p.requires_grad]
