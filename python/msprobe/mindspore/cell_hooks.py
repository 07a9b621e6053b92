"""Cell hooks for levels L0 and mix: forward/backward data of every sub-cell of the model, its
direct parameters and their gradients, and the cell call tree for construct.json."""
from msprobe.core.hook_guard import guarded
from msprobe.mindspore.backward import BACKWARD_END
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.value_encoding import for_core


def _guarded(fn):
    return guarded(STATE, fn)


def _direct_parameters(cell):
    """{short name: Parameter} of the cell's own parameters (not its children's)."""
    return {name.rsplit(".", 1)[-1]: p for name, p in cell.parameters_dict(recurse=False).items()}


class CellHooks:
    def __init__(self):
        self.handles = []
        self.hooked = set()

    def register(self, model, want_param_grads):
        models = list(model) if isinstance(model, (list, tuple)) else [model]
        for i, m in enumerate(models):
            index = f"{i}." if isinstance(model, (list, tuple)) else ""
            for name, cell in m.cells_and_names():
                if cell is m or not name or id(cell) in self.hooked:
                    continue
                self.hooked.add(id(cell))
                prefix = f"Cell.{index}{name}.{cell.__class__.__name__}."
                self._register_one(cell, prefix, want_param_grads)

    def _register_one(self, cell, prefix, want_param_grads):
        forward_names, backward_names = [], []
        param_hooked = []

        def pre_forward(session, c, args):
            forward_names.append(session.module_pre(prefix, "forward"))

        def post_forward(session, c, args, output):
            if not forward_names:
                return
            name = forward_names.pop()
            params = _direct_parameters(c)
            collected = session.module_post_forward(
                name, for_core(args), {}, for_core(output),
                {k: for_core(v) for k, v in params.items()})
            if collected and want_param_grads and not param_hooked and params:
                param_hooked.append(True)
                self._hook_params(params, prefix)

        def pre_backward(session, c, grad_output):
            BACKWARD_END.arm()
            backward_names.append(session.module_pre(prefix, "backward"))

        def post_backward(session, c, grad_input, grad_output):
            if backward_names:
                session.module_post_backward(backward_names.pop(), for_core(grad_input),
                                             for_core(grad_output))

        self.handles.append(cell.register_forward_pre_hook(_guarded(pre_forward)))
        self.handles.append(cell.register_forward_hook(_guarded(post_forward)))
        self.handles.append(cell.register_backward_pre_hook(_guarded(pre_backward)))
        self.handles.append(cell.register_backward_hook(_guarded(post_backward)))

    def _hook_params(self, params, prefix):
        names = [n for n, p in params.items() if p.requires_grad]
        for pname in names:
            def grad_hook(session, grad, pname=pname):
                BACKWARD_END.arm()
                session.param_grad(prefix, pname, for_core(grad), names)
            self.handles.append(params[pname].register_hook(_guarded(grad_hook)))

    def remove(self):
        for h in self.handles:
            try:
                h.remove()
            except Exception:
                pass
        self.handles.clear()
        self.hooked.clear()
