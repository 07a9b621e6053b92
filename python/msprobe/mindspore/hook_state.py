"""Process-wide state shared by the MindSpore API wrappers, Primitive wrappers and Cell hooks.

`active`: a started session collects data now. `busy`: a wrapped API or a probe hook is running,
so nested framework calls (and the probe's own calls) are not recorded. `want_backward`: the
configured data_mode asks for backward data. `hook_backward`: attach backward capture to recorded
calls (for data, or for the backward nodes of construct.json). `construct_all`: level mix, where
1.2.1 puts the backward node of every call made while dumping into construct.json, whatever the
filters.
"""


class HookState:
    __slots__ = ("active", "busy", "session", "on_error", "want_backward", "hook_backward",
                 "construct_all")

    def __init__(self):
        self.active = False
        self.busy = False
        self.session = None
        self.on_error = None  # callable(exc): report once and disable the probe
        self.want_backward = True
        self.hook_backward = True
        self.construct_all = False


STATE = HookState()
