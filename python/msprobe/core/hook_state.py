"""The state the API wrappers and module/cell hooks of one framework adapter share.

`active`, `session` and `on_error` are the process's: a started session collects data on every
thread. `busy` is each thread's own: it is True while a wrapped API or a probe hook runs on that
thread, so the nested framework calls (and the probe's own calls) are not recorded, while another
thread's calls still are. Code that sets `busy` puts back the value it found (see `suppressed`).
"""
import threading


class _PerThread(threading.local):
    busy = False


class HookState:
    def __init__(self):
        self.active = False
        self.session = None
        self.on_error = None  # callable(exc, call=None): report once and disable the probe
        # The probe disabled itself: hooks do nothing, wrappers only count the calls they would
        # have recorded (the session says how many at the end).
        self.failed = False
        self._thread = _PerThread()

    @property
    def busy(self):
        return self._thread.busy

    @busy.setter
    def busy(self, value):
        self._thread.busy = value

    def suppressed(self):
        """Context manager: this thread's framework calls inside it are not recorded."""
        return _Suppressed(self._thread)


class _Suppressed:
    __slots__ = ("thread", "was_busy")

    def __init__(self, thread):
        self.thread = thread

    def __enter__(self):
        self.was_busy = self.thread.busy
        self.thread.busy = True
        return self

    def __exit__(self, *exc):
        self.thread.busy = self.was_busy
        return False
