"""Primitive capture (levels L1 and mix, when start(model) is given): every mindspore.ops
Primitive stored as an attribute of a cell of the model is recorded as
Primitive.{attribute}.{PrimitiveClass}.{n}.forward / .backward."""
from msprobe.mindspore.backward import grad_recording, new_call_backward
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.value_encoding import for_core


def _wrap_call(original_call, api_name, side_effect):
    state = STATE

    def __call__(prim, *args, **kwargs):
        if not state.active or state.busy:
            return original_call(prim, *args, **kwargs)
        session = state.session
        state.busy = True
        try:
            idx = session.api_pre(api_name, for_core(args), for_core(kwargs))
            if side_effect and idx >= 0:
                session.resolve()  # it may write its inputs: read them first
        except Exception as e:
            state.on_error(e)
            idx = -1
        bw = None
        if idx >= 0 and state.hook_backward and grad_recording():
            try:
                bw = new_call_backward(api_name, idx)
                if bw is not None:
                    args = bw.wrap(args)
            except Exception as e:
                state.on_error(e)
                bw = None
        try:
            out = original_call(prim, *args, **kwargs)
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
