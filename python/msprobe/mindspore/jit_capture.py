"""Jit capture (levels L1 and mix): a call of a function or Cell compiled with mindspore.jit is
recorded as one API, Jit.{name}.{n}.forward, with its arguments and result. The original APIs
are put back while the compiled graph is built and run, so the graph compiler never sees a
wrapper; the APIs inside the graph are not recorded one by one.

Under gradient recording the call's tensor arguments and results pass through a backward-capture
primitive (backward.py), so Jit.{name}.{n}.backward holds the gradients that reached the compiled
function's outputs (input) and those it produced for its arguments (output), like an API.
PIJit functions (capture_mode="bytecode") run eagerly while dumping: see pijit_eager.py.
"""
from mindspore.nn import Cell

from msprobe.core.recorded_call import recorded_call
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.pijit_eager import PIJitEager
from msprobe.mindspore.recorded_call import MsCall

# A jit-compiled method gets its Cell first: only the rest are inputs; keyword
# arguments are recorded as {}.
_FUNCTION_CALL = MsCall(head=0, record_kwargs=False)
_METHOD_CALL = MsCall(head=1, record_kwargs=False)


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
    if args:
        owner = args[0]
        if isinstance(owner, Cell):
            # A jit-compiled construct: the Cell's class name. 1.2.1 cut str(cell) at "<", which
            # gave the class name on MindSpore 2.4; newer MindSpore prints "Name(\n children)".
            return type(owner).__name__
        text = str(owner)
        cut = text.find("<")
        if cut > 0:
            return text[:cut]
        if cut < 0 and text:
            return text
    return "JitFunction"


class JitCapture:
    def __init__(self, api_patcher, record=True):
        """record=False (overflow_check): compiled calls still run with the original APIs, but
        are not recorded."""
        self.api_patcher = api_patcher
        self.record = record
        self.module = None
        self.attr = None
        self.original = None
        self.pijit = PIJitEager(lambda: STATE.active)

    def install(self):
        if self.original is not None:
            return
        self.pijit.install()
        module, attr = _executor_module()
        if module is None:
            return
        original = getattr(module, attr)
        capture = self

        class RecordingExecutor(original):
            def __call__(self, *args, **kwargs):
                state = STATE
                if not state.active or state.busy:
                    return original.__call__(self, *args, **kwargs)
                fn = getattr(self, "fn", None) or getattr(self, "_fn", None)
                api_name = "Jit." + jit_name(fn, args)
                method = getattr(self, "obj", None) is not None

                def run(*a, **k):
                    with capture.api_patcher.suspended():
                        return original.__call__(self, *a, **k)

                if not capture.record:
                    return run(*args, **kwargs)
                return recorded_call(state, _METHOD_CALL if method else _FUNCTION_CALL, run,
                                     api_name, args, kwargs)

        RecordingExecutor.__name__ = original.__name__
        RecordingExecutor.__qualname__ = original.__qualname__
        setattr(module, attr, RecordingExecutor)
        self.module, self.attr, self.original = module, attr, original

    def uninstall(self):
        self.pijit.uninstall()
        if self.original is not None:
            setattr(self.module, self.attr, self.original)
            self.original = None
