"""The wrapper every probe hook body runs in, for both framework adapters."""


def guarded(state, fn):
    """Returns a hook that runs fn(session, *args) with nested recording suppressed; an internal
    error disables the probe (state.on_error). Always returns None: a probe hook never changes
    what the framework computes."""
    def hook(*args):
        if state.session is None:
            return None
        was_busy = state.busy
        state.busy = True
        try:
            fn(state.session, *args)
        except Exception as e:
            state.on_error(e)
        finally:
            state.busy = was_busy
        return None
    return hook
