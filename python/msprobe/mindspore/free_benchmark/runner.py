"""The free_benchmark wrappers and handlers for MindSpore PyNative (1.2.1's, docs 16).

A selected call runs as the user wrote it; then, with this thread's recording suppressed, the API
runs again on perturbed inputs (perturbation.py). In the forward stage `check` runs it outside
the gradient recording; the backward stage computes the API's input gradients with ms.vjp (ones
as the output gradient) on the inputs and on the perturbed inputs, as 1.2.1 does, and compares
those. The C++ judge gives the verdicts and writes free_benchmark.csv, from all outputs of the
call at once: host tensors are viewed without copies (as the dump's HostReads reads them) and
measured in one pass (check_ms_tensors); on an accelerator (or with MSPROBE_FORCE_DEVICE_PATH)
the measure's extremes are computed with MindSpore's kernels on the device, as the dump's
MsDeviceRecorder computes statistics, and read in one transfer (check_ms_norms). `fix` gives
training the result of the second run (improve_precision: the fp32 result in the output's
dtype), recorded by autograd so that gradients flow through it.
"""
import mindspore as ms
from mindspore import ops

from msprobe.core import device_path
from msprobe.core.free_benchmark import FuzzRunnerBase
from msprobe.mindspore.device_stats import _Probe, on_accelerator
from msprobe.mindspore.free_benchmark.perturbation import is_float_tensor, perturbed_call
from msprobe.mindspore.value_encoding import TENSOR_TYPES, tensor_for_core


def _all_tensors(value):
    if isinstance(value, TENSOR_TYPES):
        return True
    return isinstance(value, (list, tuple)) and all(_all_tensors(v) for v in value)


def _has_float(value):
    if is_float_tensor(value):
        return True
    return isinstance(value, (list, tuple)) and any(is_float_tensor(v) for v in value)


def _ones_like_outputs(out):
    if isinstance(out, TENSOR_TYPES):
        return ops.ones_like(out)
    if isinstance(out, (list, tuple)):
        return type(out)([_ones_like_outputs(v) for v in out])
    return out


def _input_grads(original, args, kwargs):
    """1.2.1's backward stage: the gradients of the API's inputs, ones as the output gradient."""
    def f(*inputs):
        return original(*inputs, **kwargs)
    out, vjp_fn = ms.vjp(f, *args)
    return vjp_fn(_ones_like_outputs(out))


def _fixed(original, perturbed):
    """fix: the second result in the types of the first (1.2.1's use_fuzzed_result)."""
    if isinstance(original, TENSOR_TYPES):
        return perturbed.astype(original.dtype)
    if isinstance(original, dict):
        return {k: _fixed(v, perturbed[k]) for k, v in original.items()}
    if isinstance(original, (list, tuple)):
        return type(original)([_fixed(v, perturbed[i]) for i, v in enumerate(original)])
    return original


def _pairs(original, perturbed):
    """(output_index or -1, original, perturbed) of the outputs 1.2.1 compares: the tensor, or
    the floating tensors of a sequence with their place."""
    if isinstance(perturbed, TENSOR_TYPES):
        return [(-1, original, perturbed)] if isinstance(original, TENSOR_TYPES) else []
    if not isinstance(perturbed, (list, tuple)) or not isinstance(original, (list, tuple)):
        return []
    return [(i, o, perturbed[i]) for i, o in enumerate(original)
            if is_float_tensor(o) and i < len(perturbed) and isinstance(perturbed[i], TENSOR_TYPES)]


class FuzzRunner(FuzzRunnerBase):
    """One free_benchmark run on MindSpore: wraps the selected APIs and judges their calls."""
    FRAMEWORK = "mindspore"

    def __init__(self, cfg, state, library_prefixes):
        super().__init__(cfg, state, library_prefixes)
        self.rank = -1  # 1.2.1 leaves the column empty without a communication group
        self.on_device = on_accelerator() or device_path.forced()

    def call(self, original, api_name, args, kwargs):
        state = self.state
        session = state.session
        if state.failed:
            session.count_unrecorded()
            return original(*args, **kwargs)
        was_busy = state.busy
        state.busy = True
        try:
            idx = session.api_pre(api_name, None, None)
        except Exception as e:  # noqa: BLE001  a fault of the probe: reported once, training goes on
            state.on_error(e, api_name)
            idx = -1
        try:  # calls made inside the API are its own business, not checked (as in 1.2.1)
            out = original(*args, **kwargs)
        finally:
            state.busy = was_busy
        if idx < 0:
            return out
        state.busy = True
        try:
            session.api_post(api_name, idx, None)
            name = f"{api_name}.{idx}"
            if self.backward:
                self._check_backward(name, original, args, kwargs, out)
            else:
                out = self._forward(name, original, args, kwargs, out)
        except Exception as e:  # noqa: BLE001
            state.on_error(e, f"{api_name}.{idx}")
        finally:
            state.busy = was_busy
        return out

    def _rerun(self, name, fn, call):
        try:
            return fn(*call[0], **call[1])
        except Exception as e:  # noqa: BLE001  the API refused the perturbed inputs
            self._warn_once(("rerun", name.rsplit(".", 1)[0]),
                            f"free_benchmark: {name} could not run on the perturbed inputs ({type(e).__name__}: "
                            f"{e}); its calls are not checked")
            return None

    def _forward(self, name, original, args, kwargs, out):
        if self.fix:
            call = perturbed_call(self.mode, args, kwargs)
            perturbed = None if call is None else self._rerun(name, original, call)
            if perturbed is None:
                return out
            try:
                return _fixed(out, perturbed)
            except (TypeError, KeyError, IndexError, AttributeError) as e:
                self._warn_once(("fix", name.rsplit(".", 1)[0]), f"free_benchmark: fix of {name} failed: {e}")
                return out
        with _Probe():
            call = perturbed_call(self.mode, args, kwargs)
            perturbed = None if call is None else self._rerun(name, original, call)
            if perturbed is not None and _has_float(perturbed):
                self._judge(name, _pairs(out, perturbed))
        return out

    def _check_backward(self, name, original, args, kwargs, out):
        if not (_all_tensors(args) and _all_tensors(out)):
            self._warn_once(("backward", name.rsplit(".", 1)[0]),
                            f"free_benchmark: {name} has non-tensor inputs or outputs; its gradients are not checked")
            return
        call = perturbed_call(self.mode, args, kwargs)
        if call is None:
            return
        try:
            origin = _input_grads(original, args, kwargs)
            perturbed = _input_grads(original, *call)
        except Exception as e:  # noqa: BLE001  the API's gradient refused the inputs
            self._warn_once(("vjp", name.rsplit(".", 1)[0]),
                            f"free_benchmark: the gradient of {name} could not be computed ({type(e).__name__}: {e})")
            return
        with _Probe():
            if _has_float(perturbed):
                self._judge(name, _pairs(origin, perturbed))

    def _judge(self, name, pairs):
        """The verdicts of every output pair of one call, in one call into the core."""
        self.checker.count_checked()
        pairs = [(index, o, p) for index, o, p in pairs if o.size and p.size]
        if not pairs:
            return
        step = self.state.session.current_step
        try:
            if not self.on_device:
                self.checker.check_ms_tensors(name, step, self.rank,
                                              [(i, tensor_for_core(o), tensor_for_core(p)) for i, o, p in pairs])
                return
            items = [(index, str(o.dtype), list(o.shape)) for index, o, _ in pairs]
            parts = [x for _, o, p in pairs for x in self._extremes(o, p)]
            numbers = ops.stack(parts).asnumpy().tobytes()  # the call's one read
            self.checker.check_ms_norms(name, step, self.rank, items, numbers)
        except (ValueError, TypeError) as e:  # outputs the judge cannot read (not a write error)
            if isinstance(e, OSError):
                raise
            self._warn_once(("compare", name.rsplit(".", 1)[0]),
                            f"free_benchmark: the outputs of {name} cannot be compared ({type(e).__name__}: {e}); "
                            "its calls are not checked")

    def _extremes(self, o, p):
        """max(o/p), max(p/o) and min(o/p) where the divisor is above the floor (1 elsewhere), in
        the perturbed dtype (bf16 in fp32), as float32."""
        o = o.astype(p.dtype)
        floor = self.checker.floor(str(p.dtype))
        if p.dtype == ms.bfloat16:
            o, p = o.astype(ms.float32), p.astype(ms.float32)
        forward = ops.where(ops.abs(p) > floor, ops.div(o, p), 1)
        backward = ops.where(ops.abs(o) > floor, ops.div(p, o), 1)
        return [ops.max(forward)[0].astype(ms.float32), ops.max(backward)[0].astype(ms.float32),
                ops.min(forward)[0].astype(ms.float32)]
