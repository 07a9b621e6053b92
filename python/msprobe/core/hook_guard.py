"""The wrapper every probe hook body runs in, for both framework adapters."""


def guarded(state, fn, skip_when_busy=False):
    """Returns a hook that runs fn(session, *args) with nested recording suppressed; an internal
    error disables the probe (state.on_error). skip_when_busy: do nothing while this thread runs
    a wrapped API or another hook. Always returns None: a probe hook never changes what the
    framework computes."""
    def hook(*args):
        session = state.session
        if session is None or state.failed:
            return None
        was_busy = state.busy
        if was_busy and skip_when_busy:
            return None
        state.busy = True
        try:
            fn(session, *args)
        except Exception as e:
            state.on_error(e)
        finally:
            state.busy = was_busy
        return None
    return hook
