"""The hook state of the MindSpore adapter (see msprobe/core/hook_state.py), shared by the API
wrappers, Primitive wrappers and Cell hooks, with MindSpore's own settings:

`want_backward`: the configured data_mode asks for backward data. `hook_backward`: attach
backward capture to recorded calls (for data, or for the backward nodes of construct.json).
`construct_all`: level mix, where 1.2.1 puts the backward node of every call made while dumping
into construct.json, whatever the filters.
"""
from msprobe.core.hook_state import HookState


class MsHookState(HookState):
    def __init__(self):
        super().__init__()
        self.want_backward = True
        self.hook_backward = True
        self.construct_all = False


STATE = MsHookState()
