"""Hooks on every sub-module (PyTorch) or sub-cell (MindSpore) of a model, for levels L0 and mix:
forward and backward data of each, its direct parameters and their gradients, and the call tree
for construct.json. Entries are named {KIND}.{index.}{name}.{Class}.; the model itself is not
hooked. A framework subclass says how its hooks are registered and how values are handed over."""
from msprobe.core.hook_guard import guarded


class TreeHooks:
    KIND = None  # "Module" or "Cell"

    def __init__(self, state):
        self.state = state
        self.handles = []
        self.hooked = set()

    # ---- the framework's part ----------------------------------------------------------------
    def named_children(self, model):
        """(name, sub-module) of every module below and including model."""
        raise NotImplementedError

    def attach(self, module, pre_forward, post_forward, pre_backward, post_backward):
        """Registers the four hooks on module, each called as hook(session, *the framework's hook
        arguments); returns the handles. post_forward takes (session, module, args, kwargs, output)."""
        raise NotImplementedError

    def recorded_parameters(self, module):
        """The module's direct parameters as the session records them."""
        raise NotImplementedError

    def grad_parameters(self, module):
        """[(name, parameter)] of the module's direct parameters that get gradients."""
        raise NotImplementedError

    def encode(self, value):
        return value

    def backward_activity(self):
        """Called when a backward hook of this tree runs."""

    # ---- shared ------------------------------------------------------------------------------
    def guarded(self, fn):
        return guarded(self.state, fn)

    def register(self, model, want_param_grads):
        models = list(model) if isinstance(model, (list, tuple)) else [model]
        for i, m in enumerate(models):
            index = f"{i}." if isinstance(model, (list, tuple)) else ""
            for name, module in self.named_children(m):
                if module is m or not name or id(module) in self.hooked:
                    continue
                self.hooked.add(id(module))
                prefix = f"{self.KIND}.{index}{name}.{module.__class__.__name__}."
                self.register_one(module, prefix, want_param_grads)

    def register_one(self, module, prefix, want_param_grads):
        forward_names, backward_names = [], []
        param_hooked = []
        encode = self.encode

        def pre_forward(session, *_):
            forward_names.append(session.module_pre(prefix, "forward"))

        def post_forward(session, mod, args, kwargs, output):
            if not forward_names:
                return
            name = forward_names.pop()
            collected = session.module_post_forward(name, encode(args), encode(kwargs),
                                                    encode(output), self.recorded_parameters(mod))
            if collected and want_param_grads and not param_hooked:
                param_hooked.append(True)
                self._hook_params(mod, prefix)

        def pre_backward(session, *_):
            self.backward_activity()
            backward_names.append(session.module_pre(prefix, "backward"))

        def post_backward(session, mod, grad_input, grad_output):
            if backward_names:
                session.module_post_backward(backward_names.pop(), encode(grad_input),
                                             encode(grad_output))

        self.handles.extend(self.attach(module, self.guarded(pre_forward),
                                        self.guarded(post_forward), self.guarded(pre_backward),
                                        self.guarded(post_backward)))

    def _hook_params(self, module, prefix):
        params = self.grad_parameters(module)
        names = [n for n, _ in params]
        encode = self.encode
        for pname, param in params:
            def grad_hook(session, grad, pname=pname):
                self.backward_activity()
                session.param_grad(prefix, pname, encode(grad), names)
            self.handles.append(param.register_hook(self.guarded(grad_hook)))

    def remove(self):
        for h in self.handles:
            try:
                h.remove()
            except Exception:  # noqa: BLE001  a handle of a module already gone
                pass
        self.handles.clear()
        self.hooked.clear()
