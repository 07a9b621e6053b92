"""Cell hooks for levels L0 and mix (msprobe/core/tree_hooks.py), with what is MindSpore's own:
values handed over through for_core, and the end of a backward pass noticed (backward.py)."""
from msprobe.core.tree_hooks import TreeHooks
from msprobe.mindspore.backward import BACKWARD_END
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.value_encoding import for_core


def _direct_parameters(cell):
    """{short name: Parameter} of the cell's own parameters (not its children's)."""
    return {name.rsplit(".", 1)[-1]: p for name, p in cell.parameters_dict(recurse=False).items()}


class CellHooks(TreeHooks):
    KIND = "Cell"

    def __init__(self):
        super().__init__(STATE)

    def named_children(self, model):
        return model.cells_and_names()

    def attach(self, cell, pre_forward, post_forward, pre_backward, post_backward):
        # A Cell's forward hook gets no keyword arguments: they are recorded as {}.
        return (cell.register_forward_pre_hook(pre_forward),
                cell.register_forward_hook(lambda c, args, output:
                                           post_forward(c, args, {}, output)),
                cell.register_backward_pre_hook(pre_backward),
                cell.register_backward_hook(post_backward))

    def encode(self, value):
        return for_core(value)

    def recorded_parameters(self, cell):
        return {k: for_core(v) for k, v in _direct_parameters(cell).items()}

    def grad_parameters(self, cell):
        return [(n, p) for n, p in _direct_parameters(cell).items() if p.requires_grad]

    def backward_activity(self):
        BACKWARD_END.arm()
