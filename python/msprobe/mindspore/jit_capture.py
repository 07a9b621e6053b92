"""Jit capture (levels L1 and mix): a call of a function or Cell compiled with mindspore.jit is
recorded as one API, Jit.{name}.{n}.forward, with its arguments and result. The original APIs
are put back while the compiled graph is built and run, so the graph compiler never sees a
wrapper; the APIs inside the graph are not recorded one by one.

Jit backward entries (Jit.{name}.{n}.backward) are not produced (see docs/mindspore_dump.md)."""
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.value_encoding import for_core


def _executor_module():
    try:
        import mindspore.graph.api as api
        if hasattr(api, "_JitExecutor"):
            return api, "_JitExecutor"
    except ImportError:
        pass
    import mindspore.common.api as api  # MindSpore 2.4-2.6
    for attr in ("_JitExecutor", "_MindsporeFunctionExecutor"):
        if hasattr(api, attr):
            return api, attr
    return None, None


def jit_name(fn, args):
    name = getattr(fn, "__name__", None)
    if name and name != "construct":
        return name
    if args:  # a jit-compiled construct: the Cell's class name, as str(cell) starts with it
        text = str(args[0])
        cut = text.find("<")
        if cut > 0:
            return text[:cut]
        if cut < 0 and text:
            return text
    return "JitFunction"


class JitCapture:
    def __init__(self, api_patcher):
        self.api_patcher = api_patcher
        self.enabled = False
        self.module = None
        self.attr = None
        self.original = None

    def install(self):
        if self.original is not None:
            return
        module, attr = _executor_module()
        if module is None:
            return
        original = getattr(module, attr)
        capture = self

        class RecordingExecutor(original):
            def __call__(self, *args, **kwargs):
                state = STATE
                if not (capture.enabled and state.active) or state.busy:
                    return original.__call__(self, *args, **kwargs)
                fn = getattr(self, "fn", None) or getattr(self, "_fn", None)
                api_name = "Jit." + jit_name(fn, args)
                session = state.session
                state.busy = True
                try:
                    idx = session.api_pre(api_name, for_core(args), {})
                except Exception as e:
                    state.on_error(e)
                    idx = -1
                try:
                    with capture.api_patcher.suspended():
                        out = original.__call__(self, *args, **kwargs)
                finally:
                    state.busy = False
                if idx >= 0:
                    state.busy = True
                    try:
                        session.api_post(api_name, idx, for_core(out))
                    except Exception as e:
                        state.on_error(e)
                    finally:
                        state.busy = False
                return out

        RecordingExecutor.__name__ = original.__name__
        RecordingExecutor.__qualname__ = original.__qualname__
        setattr(module, attr, RecordingExecutor)
        self.module, self.attr, self.original = module, attr, original

    def uninstall(self):
        if self.original is not None:
            setattr(self.module, self.attr, self.original)
            self.original = None
