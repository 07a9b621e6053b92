"""Per-call backward capture for APIs and Primitives.

MindSpore's own Cell backward hooks work by passing the Cell's tensor inputs, and then its
outputs, through one `CellBackwardHook` primitive: in backward the primitive first sees the
gradients of the outputs and then those of the inputs, and calls its hooks with both. We use the
same primitive directly, one per recorded call, instead of building a Cell for every API call as
the original does (a Cell costs milliseconds to build; the primitive microseconds).
"""
from msprobe.core.hook_guard import guarded
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.value_encoding import for_core

try:
    from mindspore.ops.operations._inner_ops import CellBackwardHook as _CellBackwardHook
    from mindspore.ops.operations._inner_ops import HookType as _HookType
except ImportError:  # pragma: no cover - then no API backward data
    _CellBackwardHook = _HookType = None

try:
    from mindspore.graph.api import _pynative_executor as _executor
except ImportError:  # pragma: no cover - MindSpore before 2.7
    from mindspore.common.api import _pynative_executor as _executor


class _BackwardEnd:
    """Reads the deferred tensors when a backward pass ends (value_encoding.py): an optimizer
    that runs next, inside the dump window, updates parameters and what aliases them in place."""
    __slots__ = ("queued",)

    def __init__(self):
        self.queued = False

    def arm(self):
        if self.queued:
            return
        try:
            _executor.queue_backward_final_callback(self.fire)
            self.queued = True
        except Exception:  # pragma: no cover - no such callback: read at the usual bounds
            pass

    def fire(self):
        self.queued = False
        state = STATE
        if state.session is None:
            return
        try:
            state.session.resolve()
        except Exception as e:  # never break training
            state.on_error(e)


BACKWARD_END = _BackwardEnd()


def grad_recording():
    """True while MindSpore records the forward for a gradient (ms.grad, value_and_grad...)."""
    try:
        return bool(_executor.requires_grad())
    except Exception:  # pragma: no cover
        return False


class _HookDict(dict):
    """CellBackwardHook keeps a weak reference to its hook table: a dict subclass allows that."""
    __slots__ = ("__weakref__",)


def _set_call_hook(prim):
    """MindSpore's own backward hook of a CellBackwardHook (register_backward_hook), with one
    addition: the primitive sees the gradients of the outputs first, then those of the inputs;
    where MindSpore only keeps the first, this also calls hook_dict()[BEGIN] with them. So the
    call's backward is known to begin, as 1.2.1 knows it, without a second primitive."""
    def hook_backward_grad(grad):
        hooks = prim.hook_dict() or {}
        if prim.grad_output is None:
            prim.grad_output = grad
            begin = hooks.get(_BEGIN)
            if begin is not None:
                begin(prim.cell, grad)
            return prim.cell_id  # MindSpore's sign for "wait for the inputs' gradients"
        record = hooks.get(_RECORD)
        if record is not None:
            record(prim.cell, grad, prim.grad_output)
        prim.grad_output = None
        return grad
    prim.set_hook_fn(hook_backward_grad, _HookType.BackwardHook)


_RECORD, _BEGIN = 0, 1


class CallBackward:
    """Backward capture of one call: wrap(args) before the call, wrap(output) after it.
    When the gradients of its outputs arrive, the entry's parent and place are taken (as 1.2.1
    does); the entry is written when the inputs' gradients come (inside an LSTM, after other
    cells' backward)."""
    __slots__ = ("prim", "table")

    def __init__(self, api_name, idx):
        table = _HookDict()

        def record(session, _owner, grad_inputs, grad_outputs):
            BACKWARD_END.arm()
            session.api_backward(api_name, idx, for_core(grad_outputs), for_core(grad_inputs))

        def begin(session, _owner, _grad_outputs):
            session.api_backward_begin(api_name, idx)

        table[_RECORD] = guarded(STATE, record, skip_when_busy=True)
        table[_BEGIN] = guarded(STATE, begin, skip_when_busy=True)
        self.table = table
        self.prim = _CellBackwardHook(f"{api_name}.{idx}", None, table)
        _set_call_hook(self.prim)
        self.prim.msprobe_table = table  # the primitive holds the table only weakly

    def wrap(self, values):
        return self.prim(values)


def new_call_backward(api_name, idx):
    if _CellBackwardHook is None:
        return None
    return CallBackward(api_name, idx)
