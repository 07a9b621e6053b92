"""One recorded call, for every framework's API wrappers (and MindSpore's Primitive and Jit
captures): the forward record before and after the call, and the framework's backward capture.

What differs per framework is a `CallCapture`: how values are handed to the C++ session, what is
recorded as the output, how the backward of the call is captured."""
import functools

_NO_KWARGS = {}


class CallCapture:
    """The framework's part of one recorded call; this default records the values as they are
    and captures no backward."""
    record_kwargs = True   # False: the call's keyword arguments are recorded as {}
    record_failure = False  # a call that raises gets its output recorded as null

    def encode(self, value):
        """The value as the C++ session reads it."""
        return value

    def opened(self, session):
        """Runs once the forward entry is open, before the call (e.g. read the inputs first)."""

    def attach_backward(self, api_name, idx, args):
        """Before the call: (args to call with, backward handle or None)."""
        return args, None

    def settle(self, out, args, kwargs):
        """Right after the call, still unrecorded: the value recorded as the call's output."""
        return out

    def after(self, api_name, idx, out, collected, backward):
        """After the output is recorded (collected: the session kept it): what the caller gets."""
        return out


def recorded_call(state, capture, call, api_name, args, kwargs):
    """Returns call(*args, **kwargs), recorded. The caller has checked that dumping is on and that
    this thread is not inside probe code (state.active and not state.busy)."""
    session = state.session
    if state.failed:
        session.count_unrecorded()
        return call(*args, **kwargs)
    was_busy = state.busy
    state.busy = True
    try:
        idx = session.api_pre(api_name, capture.encode(args),
                              capture.encode(kwargs) if capture.record_kwargs else _NO_KWARGS)
        if idx >= 0:
            capture.opened(session)
    except Exception as e:
        state.on_error(e, f"{api_name}.forward")
        idx = -1
    backward = None
    if idx >= 0:
        try:
            args, backward = capture.attach_backward(api_name, idx, args)
        except Exception as e:
            state.on_error(e, f"{api_name}.{idx}.forward")
            backward = None
    try:
        out = call(*args, **kwargs)
        recorded = capture.settle(out, args, kwargs) if idx >= 0 else out
    except BaseException:
        if idx >= 0 and capture.record_failure:
            try:
                session.api_post(api_name, idx, (None,))
            except Exception as e:
                state.on_error(e, f"{api_name}.{idx}.forward")
        raise
    finally:
        state.busy = was_busy
    if idx < 0:
        return out
    state.busy = True
    try:
        collected = session.api_post(api_name, idx, capture.encode(recorded))
        out = capture.after(api_name, idx, out, collected, backward)
    except Exception as e:
        state.on_error(e, f"{api_name}.{idx}.forward")
    finally:
        state.busy = was_busy
    return out


def recording_wrapper(state, original, api_name, capture):
    """`original` recorded as `api_name` while the probe is on; one attribute check while off."""
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        if not state.active or state.busy:
            return original(*args, **kwargs)
        return recorded_call(state, capture, original, api_name, args, kwargs)
    return wrapper
