"""One recorded call, shared by the API wrappers, the Primitive hooks and the Jit capture: the
forward record before and after the call and, under a gradient recording, the backward capture of
its tensor inputs and outputs (backward.py). The caller has checked that dumping is on and that
no probe code is running (STATE.active and not STATE.busy)."""
from msprobe.mindspore.backward import grad_recording, new_call_backward
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.value_encoding import for_core

_NO_KWARGS = {}


def recorded_call(call, api_name, args, kwargs, read_first=False, backward=True, head=0,
                  record_kwargs=True):
    """Returns call(*args, **kwargs). read_first: read the recorded tensors before the call (it
    changes its inputs in place); backward: attach the backward capture; head: leading arguments
    that are not inputs (a jit-compiled method's Cell); record_kwargs=False records {}."""
    state = STATE
    session = state.session
    state.busy = True
    try:
        idx = session.api_pre(api_name, for_core(args),
                              for_core(kwargs) if record_kwargs else _NO_KWARGS)
        if read_first and idx >= 0:
            session.resolve()
    except Exception as e:
        state.on_error(e)
        idx = -1
    bw = None
    if idx >= 0 and backward and (head == 0 or len(args) > head) and state.hook_backward \
            and grad_recording():
        try:
            bw = new_call_backward(api_name, idx)
            if bw is not None:
                args = bw.wrap(args) if head == 0 else \
                    tuple(args[:head]) + tuple(bw.wrap(tuple(args[head:])))
        except Exception as e:
            state.on_error(e)
            bw = None
    try:
        out = call(*args, **kwargs)
    except BaseException:
        # While dumping, kernels run as they are dispatched (pipeline.py), so a kernel that
        # fails raises here: record its output as null, then the script meets the error.
        if idx >= 0:
            try:
                session.api_post(api_name, idx, (None,))
            except Exception as e:
                state.on_error(e)
        raise
    finally:
        state.busy = False
    if idx < 0:
        return out
    state.busy = True
    try:
        collected = session.api_post(api_name, idx, for_core(out))
        if bw is not None and (collected or state.construct_all):
            out = bw.wrap(out)
    except Exception as e:
        state.on_error(e)
    finally:
        state.busy = False
    return out
