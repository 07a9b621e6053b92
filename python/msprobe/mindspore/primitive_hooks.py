"""Primitive capture (levels L1 and mix, when start(model) is given): every mindspore.ops
Primitive stored as an attribute of a cell of the model is recorded as
Primitive.{attribute}.{PrimitiveClass}.{n}.forward / .backward."""
import functools

from msprobe.core.recorded_call import recorded_call
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.recorded_call import MsCall


def _wrap_call(original_call, api_name, side_effect):
    state = STATE
    # A side-effect Primitive may write its inputs: they are read before it runs.
    capture = MsCall(read_first=side_effect)

    def __call__(prim, *args, **kwargs):
        if not state.active or state.busy:
            return original_call(prim, *args, **kwargs)
        return recorded_call(state, capture, functools.partial(original_call, prim), api_name,
                             args, kwargs)

    return __call__


class PrimitiveHooks:
    def __init__(self):
        self.patched = []  # (primitive, original class)

    def register(self, model):
        from mindspore.ops.primitive import Primitive
        models = list(model) if isinstance(model, (list, tuple)) else [model]
        seen = set()
        for m in models:
            for _, cell in m.cells_and_names():
                for attr, value in list(vars(cell).items()):
                    if not isinstance(value, Primitive) or id(value) in seen:
                        continue
                    seen.add(id(value))
                    cls = value.__class__
                    api_name = f"Primitive.{attr}.{cls.__name__}"
                    side_effect = bool(getattr(value, "attrs", {}).get("side_effect_mem"))
                    hooked = type(cls.__name__, (cls,),
                                  {"__call__": _wrap_call(cls.__call__, api_name, side_effect),
                                   "__msprobe_hooked__": True})
                    try:
                        value.__class__ = hooked
                    except TypeError:
                        continue
                    self.patched.append((value, cls))

    def remove(self):
        for prim, cls in self.patched:
            try:
                prim.__class__ = cls
            except TypeError:
                pass
        self.patched.clear()
