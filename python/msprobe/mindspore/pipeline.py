"""PyNative's frontend/bprop pipeline is switched off while dumping.

PyNative hands each operator to a frontend thread and then to a backend thread. The probe's
backward-capture primitive (`CellBackwardHook`, see backward.py) is executed synchronously and
first waits for that pipeline to drain, and every read of a tensor for its statistics does too;
each wait costs about a millisecond (the queue threads have to wake up), far more than most
operators. With the frontend/bprop pipeline off, operators are dispatched from the Python thread
itself and those waits are short. MindSpore's own `saved_tensors_hooks` switches the pipeline
off in the same way for hooks that read tensors. Results are the same either way: only where
the operators are scheduled changes. The user's previous setting is restored when dumping stops.
"""
try:
    from mindspore.graph.api import _pynative_executor as executor
except ImportError:  # pragma: no cover - MindSpore before 2.7
    from mindspore.common.api import _pynative_executor as executor


class _Pipeline:
    __slots__ = ("held", "was_disabled")

    def __init__(self):
        self.held = False
        self.was_disabled = False

    def set_synchronous(self, on):
        """on=True: switch the pipeline off, remembering whether it was off already;
        on=False: put back what was there before."""
        if on == self.held:
            return
        try:
            if on:
                self.was_disabled = bool(executor.disable_frontend_and_bprop_pipeline())
            elif not self.was_disabled:
                executor.enable_frontend_and_bprop_pipeline()
        except Exception:  # pragma: no cover - an executor without the switch: stays as it is
            return
        self.held = on


PIPELINE = _Pipeline()
