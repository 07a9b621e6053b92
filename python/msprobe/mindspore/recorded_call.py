"""MindSpore's part of a recorded call (msprobe/core/recorded_call.py), shared by the API
wrappers, the Primitive hooks and the Jit capture: values are handed over through for_core
(deferred reads, value_encoding.py), and under a gradient recording the call's tensor inputs and
outputs pass through a backward-capture primitive (backward.py)."""
from msprobe.core.recorded_call import CallCapture
from msprobe.mindspore.backward import grad_recording, new_call_backward
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.value_encoding import for_core


class MsCall(CallCapture):
    """read_first: read the recorded tensors before the call (it changes its inputs in place);
    backward: attach the backward capture; head: leading arguments that are not inputs (a
    jit-compiled method's Cell); record_kwargs=False records {}."""
    # While dumping, kernels run as they are dispatched (pipeline.py), so a kernel that fails
    # raises in the call: its output is recorded as null, then the script meets the error.
    record_failure = True

    def __init__(self, read_first=False, backward=True, head=0, record_kwargs=True):
        self.read_first = read_first
        self.backward = backward
        self.head = head
        self.record_kwargs = record_kwargs

    def encode(self, value):
        return for_core(value)

    def opened(self, session):
        if self.read_first:
            session.resolve()

    def attach_backward(self, api_name, idx, args):
        head = self.head
        if not (self.backward and (head == 0 or len(args) > head) and STATE.hook_backward
                and grad_recording()):
            return args, None
        bw = new_call_backward(api_name, idx)
        if bw is None:
            return args, None
        args = bw.wrap(args) if head == 0 else tuple(args[:head]) + tuple(bw.wrap(tuple(args[head:])))
        return args, bw

    def after(self, api_name, idx, out, collected, backward):
        if backward is not None and (collected or STATE.construct_all):
            return backward.wrap(out)
        return out

