"""Module hooks for levels L0 and mix (msprobe/core/tree_hooks.py), with what is PyTorch's own:
torch's full backward hooks hand back views that user code must be able to modify in place."""
import torch
from torch.utils.hooks import BackwardHook

from msprobe.core.tree_hooks import TreeHooks
from msprobe.pytorch.hook_state import STATE


def _clone_hooked(value):
    """Clones the tensors that torch's BackwardHookFunction returned as views of its inputs, so
    that user code may modify module inputs and outputs in place (nn.ReLU(inplace=True), x.add_)
    as it can without hooks. The clone's backward is the identity: gradients are unchanged."""
    if isinstance(value, torch.Tensor):
        fn = value.grad_fn
        if fn is not None and fn.name() == "BackwardHookFunctionBackward":
            return value.clone()
        return value
    if isinstance(value, tuple):
        return tuple(_clone_hooked(v) for v in value)
    if isinstance(value, list):
        return [_clone_hooked(v) for v in value]
    return value


def _hookable(value):
    return isinstance(value, torch.Tensor) or (
        isinstance(value, tuple) and all(isinstance(v, torch.Tensor) for v in value))


def _setup_output_on_attributes(setup_output, hook, output):
    """torch hooks only a Tensor or a tuple output; for any other object (transformers'
    ModelOutput, a dict subclass whose fields are also attributes) 1.2.1 hooks each attribute
    that is a tensor or a tuple of tensors, in dir() order, and sets the hooked value back. So
    the module gets its backward entry (and each hooked tensor its Tensor.view_as), as in 1.2.1.
    An attribute that cannot be read or set is left alone: training must not break."""
    for attr in dir(output):
        try:
            item = getattr(output, attr)
        except Exception:  # noqa: BLE001  a property of a user object may raise anything
            continue
        if not _hookable(item):
            continue
        hooked = _clone_hooked(setup_output(hook, item))
        try:
            setattr(output, attr, hooked)
        except Exception:  # noqa: BLE001
            continue
    return output


def _patch_backward_hook_views():
    if getattr(BackwardHook, "__msprobe_patched__", False):
        return
    setup_input, setup_output = BackwardHook.setup_input_hook, BackwardHook.setup_output_hook

    def setup_output_hook(self, args):
        if isinstance(args, (torch.Tensor, tuple)):
            return _clone_hooked(setup_output(self, args))
        return _setup_output_on_attributes(setup_output, self, args)

    BackwardHook.setup_input_hook = lambda self, args: _clone_hooked(setup_input(self, args))
    BackwardHook.setup_output_hook = setup_output_hook
    BackwardHook.__msprobe_patched__ = True


class ModuleHooks(TreeHooks):
    KIND = "Module"

    def __init__(self):
        super().__init__(STATE)

    def register(self, model, want_param_grads):
        _patch_backward_hook_views()
        super().register(model, want_param_grads)

    def named_children(self, model):
        return model.named_modules()

    def attach(self, module, pre_forward, post_forward, pre_backward, post_backward):
        return (module.register_forward_pre_hook(pre_forward),
                module.register_forward_hook(post_forward, with_kwargs=True),
                module.register_full_backward_pre_hook(pre_backward),
                module.register_full_backward_hook(post_backward))

    def recorded_parameters(self, module):
        return module._parameters

    def grad_parameters(self, module):
        return [(n, p) for n, p in module.named_parameters(recurse=False) if p.requires_grad]
