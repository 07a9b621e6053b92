"""Module hooks for levels L0 and mix: forward/backward data of every sub-module, its direct
parameters, their gradients, and the module call tree for construct.json."""
import torch
from torch.utils.hooks import BackwardHook

from msprobe.core.hook_guard import guarded
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


def _guarded(fn):
    return guarded(STATE, fn)


class ModuleHooks:
    def __init__(self):
        self.handles = []
        self.hooked = set()

    def register(self, model, data_mode_backward):
        _patch_backward_hook_views()
        models = list(model) if isinstance(model, (list, tuple)) else [model]
        for i, m in enumerate(models):
            index = f"{i}." if len(models) > 1 or isinstance(model, (list, tuple)) else ""
            for name, module in m.named_modules():
                if module is m or not name or id(module) in self.hooked:
                    continue
                self.hooked.add(id(module))
                prefix = f"Module.{index}{name}.{module.__class__.__name__}."
                self._register_one(module, prefix, data_mode_backward)

    def _register_one(self, module, prefix, want_param_grads):
        forward_names, backward_names = [], []
        param_hooked = []

        def pre_forward(session, mod, args):
            forward_names.append(session.module_pre(prefix, "forward"))

        def post_forward(session, mod, args, kwargs, output):
            if not forward_names:
                return
            name = forward_names.pop()
            collected = session.module_post_forward(name, args, kwargs, output, mod._parameters)
            if collected and want_param_grads and not param_hooked:
                param_hooked.append(True)
                self._hook_params(mod, prefix)

        def pre_backward(session, mod, grad_output):
            backward_names.append(session.module_pre(prefix, "backward"))

        def post_backward(session, mod, grad_input, grad_output):
            if backward_names:
                session.module_post_backward(backward_names.pop(), grad_input, grad_output)

        self.handles.append(module.register_forward_pre_hook(_guarded(pre_forward)))
        self.handles.append(module.register_forward_hook(_guarded(post_forward), with_kwargs=True))
        self.handles.append(module.register_full_backward_pre_hook(_guarded(pre_backward)))
        self.handles.append(module.register_full_backward_hook(_guarded(post_backward)))

    def _hook_params(self, module, prefix):
        names = [n for n, p in module.named_parameters(recurse=False) if p.requires_grad]
        for pname, param in module.named_parameters(recurse=False):
            if not param.requires_grad:
                continue

            def grad_hook(session, grad, pname=pname):
                session.param_grad(prefix, pname, grad, names)

            self.handles.append(param.register_hook(_guarded(grad_hook)))

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles.clear()
        self.hooked.clear()
