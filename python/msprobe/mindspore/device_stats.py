"""MindSpore tensors on an accelerator (Ascend, GPU): statistics on the device, read in batches.

Recorded tensors reach the core as `Deferred` values (value_encoding.py), read together at
the bounds described there (64 values, 0.5 s, backward end, before in-place APIs, stop/step).
On an accelerator the read does not copy the tensors: prepare() runs MindSpore's own reductions
(max, min, mean, norm; any/all for bool) on every new deferred tensor, stacks the results per
number type (external_stats.h: float32, or float64 for float64/int32/int64 tensors) and brings
them to the host with one read per type -- the batch's only wait. The core turns the numbers
into records with the host path's rules. Parameters (updated in place by optimizers without a
wrapped API) get their reductions launched when recorded.

fp16/bf16 and integer tensors are cast to the number type before the reductions (MindSpore's
CPU and some device kernels lack max/norm for them). Complex tensors are read to the host.
MindSpore writes no Max/Min_except_inf_nan, so no extremes are computed.

md5 and tensor tasks: prepare() starts an asynchronous copy of each new tensor to the host
(Tensor.move_to("CPU", blocking=False)), waits once for the batch, and the core checksums and
writes the host copies. (MindSpore has no public API for reusable pinned host buffers; it
allocates the host copies itself.)

MSPROBE_FORCE_DEVICE_PATH=1 (a testing aid, msprobe/core/device_path.py) sends CPU tensors
through the statistics path; on the CPU the copy tasks read tensors as the host path does.
"""
import contextlib
import functools
import math

import mindspore as ms
import numpy as np
from mindspore import mint, ops

from msprobe import _core
from msprobe.core import device_path
from msprobe.core.device_recorder import DeviceRecorder
from msprobe.mindspore import value_encoding
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.value_encoding import Deferred, tensor_for_core

_NO_GRAD = getattr(ms, "_no_grad", None)
_COMPLEX = {ms.complex64, ms.complex128}
_UNSUPPORTED = {getattr(ms, n) for n in ("uint16", "uint32", "uint64") if hasattr(ms, n)}


def on_accelerator():
    return ms.get_context("device_target") in ("Ascend", "GPU")


@functools.lru_cache(maxsize=None)
def _number_dtype(dtype):
    """The dtype the device statistics of `dtype` are computed in (the core's rule)."""
    return ms.float64 if _core.device_stats_number_dtype(str(dtype)) == "float64" else ms.float32


class _Probe:
    """Runs MindSpore operators for the probe: not recorded, not differentiated."""

    def __enter__(self):
        self.busy = STATE.busy
        STATE.busy = True
        self.ng = _NO_GRAD() if _NO_GRAD is not None else None
        if self.ng is not None:
            self.ng.__enter__()
        return self

    def __exit__(self, *exc):
        if self.ng is not None:
            self.ng.__exit__(*exc)
        STATE.busy = self.busy
        return False


class HostReads(DeviceRecorder):
    """Tensors on the host: deferred values are read by the core from the tensor itself, in
    batches (value_encoding.py says why MindSpore defers them)."""
    deferred_type = Deferred

    def resolve(self, d):
        return tensor_for_core(d.tensor)


class MsDeviceRecorder(DeviceRecorder):
    """prepare / resolve / rescaled of the core's device path for MindSpore tensors
    (msprobe/core/device_recorder.py), and snapshot() for Parameters (value_encoding.py).

    Deferred.state: None (not started), ("stats", parts, number dtype) launched,
    ("numbers", bytes) read, ("host", tensor) copy started, ("read", value) host path value.
    """

    deferred_type = Deferred

    def __init__(self, copy_tensors, accelerator):
        self.copy_tensors = copy_tensors
        self.accelerator = accelerator
        self.pending = 0
        self.recorded = 0
        self.fallbacks = 0  # tensors read on the host because a reduction was missing

    # ---- starting the work of one tensor --------------------------------------------------
    def snapshot(self, tensor):
        """A Parameter: its reductions (or copy) start now, before an optimizer changes it."""
        d = Deferred(tensor)
        with _Probe():
            self._start(d)
        return d

    def _start(self, d):
        t = d.tensor
        self.recorded += 1
        try:
            dtype = t.dtype
            shape = tuple(t.shape)
        except Exception:
            d.state = ("read", tensor_for_core(t))
            return
        if self.copy_tensors:
            if self.accelerator and hasattr(t, "move_to"):
                try:
                    d.state = ("host", t.move_to("CPU", blocking=False))
                    return
                except (RuntimeError, TypeError, ValueError):
                    self.fallbacks += 1
            d.state = ("read", tensor_for_core(t))
            return
        if dtype in _COMPLEX or dtype in _UNSUPPORTED:
            d.state = ("read", tensor_for_core(t))
            return
        if math.prod(shape) == 0:
            d.state = ("numbers", b"", str(dtype), shape)
            return
        n = _number_dtype(dtype)
        try:
            if not shape:
                parts = [t.astype(n)]
            elif dtype == ms.bool_:
                parts = [mint.any(t).astype(n), mint.all(t).astype(n)]
            else:
                x = t if dtype == n else t.astype(n)
                parts = [mint.max(x), mint.min(x), mint.mean(x), ops.norm(x)]
        except (RuntimeError, TypeError, ValueError):
            # No such kernel on this backend (said when the operator is selected): host read.
            self.fallbacks += 1
            d.state = ("read", tensor_for_core(t))
            return
        d.state = ("stats", parts, n, str(dtype), shape)

    # ---- the core's calls ------------------------------------------------------------------
    def prepare(self, fresh, force):
        """Starts and reads every new value: one read per number type for the whole batch."""
        self.pending += len(fresh)
        if not fresh:
            return self.pending
        with _Probe():
            groups = {ms.float32: [], ms.float64: []}
            where = []
            copies = False
            for d in fresh:
                if getattr(d, "state", None) is None:
                    self._start(d)
                kind = d.state[0]
                if kind == "stats":
                    _, parts, n, name, shape = d.state
                    g = groups[n]
                    where.append((d, n, len(g), len(parts), name, shape))
                    g.extend(parts)
                elif kind == "host":
                    copies = True
            numbers = {}
            for n, parts in groups.items():
                if parts:
                    numbers[n] = ops.stack(parts).asnumpy().tobytes()  # the batch's wait
            for d, n, index, count, name, shape in where:
                width = 8 if n == ms.float64 else 4
                d.state = ("numbers", numbers[n][index * width:(index + count) * width], name,
                           shape)
            if copies:
                ms.runtime.synchronize()
        return self.pending

    def resolve(self, d):
        """What the core reads for a deferred value: (numbers, dtype, shape) or a host array."""
        self.pending -= 1
        state = getattr(d, "state", None)
        if state is None:
            return tensor_for_core(d.tensor)
        kind = state[0]
        if kind == "numbers":
            return state[1], state[2], state[3]
        if kind == "host":
            return tensor_for_core(state[1])
        return state[1]

    def rescaled(self, d, scale):
        """Mean and norm (two float64) of a float64 tensor's values divided by `scale`."""
        t = d.tensor
        with _Probe():
            # a Python float would be taken as float32, where 1e-200 is 0
            x = mint.div(t.astype(ms.float64), ms.Tensor(scale, ms.float64))
            two = np.array([mint.mean(x).asnumpy(), ops.norm(x).asnumpy()], dtype=np.float64)
        return two.tobytes()

    # ---- whole steps (grad_probe) ----------------------------------------------------------
    @contextlib.contextmanager
    def host_views(self, tensors):
        """Host arrays of `tensors` while the context is open: read where they are on a CPU
        (unless forced); else concatenated on the device and copied with one transfer per dtype
        (bfloat16, which NumPy lacks, one tensor at a time through DLPack)."""
        if not (on_accelerator() or device_path.forced()):   # the context may change after __init__
            yield [tensor_for_core(t) for t in tensors]
            return
        out = [None] * len(tensors)
        groups = {}
        for i, t in enumerate(tensors):
            groups.setdefault(t.dtype, []).append(i)
        with _Probe():
            for dtype, indices in groups.items():
                if dtype == ms.bfloat16:
                    for i in indices:
                        out[i] = tensor_for_core(tensors[i])
                    continue
                flat = ops.cat([tensors[i].reshape(-1) for i in indices]).asnumpy()
                offset = 0
                for i in indices:
                    n = tensors[i].size
                    out[i] = flat[offset:offset + n].reshape(tensors[i].shape)
                    offset += n
        yield out


def attach(session):
    """On an accelerator (or with MSPROBE_FORCE_DEVICE_PATH): statistics of deferred tensors on
    the device (MsDeviceRecorder); else they are read on the host (HostReads)."""
    accelerator = on_accelerator()
    if accelerator or device_path.forced():
        rec = MsDeviceRecorder(session.needs_tensor_bytes, accelerator)
        value_encoding.DEVICE = rec
    else:
        rec = HostReads()
        value_encoding.DEVICE = None
    return rec.attach(session)
