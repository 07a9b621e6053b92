"""The wrapper every probe hook body runs in, for both framework adapters."""


def run_guarded(state, fn, *args):
    """Runs fn(*args) as a probe hook body: with nested recording suppressed; an internal error
    disables the probe (state.on_error), never the training."""
    if state.failed:
        return
    was_busy = state.busy
    state.busy = True
    try:
        fn(*args)
    except Exception as e:
        state.on_error(e)
    finally:
        state.busy = was_busy


def guarded(state, fn, skip_when_busy=False):
    """Returns a hook that runs fn(session, *args) through run_guarded while a session is open.
    skip_when_busy: do nothing while this thread runs a wrapped API or another hook. Always
    returns None: a probe hook never changes what the framework computes."""
    def hook(*args):
        session = state.session
        if session is None or state.failed:
            return None
        if state.busy and skip_when_busy:
            return None
        run_guarded(state, fn, session, *args)
        return None
    return hook
