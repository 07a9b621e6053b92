"""Process-wide state shared by the API wrappers and module hooks.

`active` is True while a started session collects data; `busy` is True while a wrapped API or a
probe hook runs, so nested framework calls (and the probe's own calls) are not recorded.
"""


class HookState:
    __slots__ = ("active", "busy", "session", "on_error")

    def __init__(self):
        self.active = False
        self.busy = False
        self.session = None
        self.on_error = None  # callable(exc): report once and disable the probe


STATE = HookState()
