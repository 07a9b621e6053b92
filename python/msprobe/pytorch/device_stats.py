"""PyTorch tensors in accelerator memory (CUDA, or any device torch exposes through its device
module interface -- torch.get_device_module(), so torch_npu's "npu" works as it is).

Statistics task: for each tensor the framework's own reductions (aminmax, mean, vector_norm)
run on the device, on the tensor's current stream, into 0-dim results; nothing waits. Every
BATCH_RECORDS records the results are stacked into one small buffer (float32 and float64 numbers,
external_stats.h), copied to pinned host memory with one asynchronous copy, and an event is
recorded. The core asks prepare() how many of the oldest records are ready (event completed)
and reads those; at stop()/step() it waits for all. Values are those of the tensor when it was
recorded: later in-place changes run after the reductions on the same stream.

md5 and tensor tasks: the tensor is copied asynchronously into a reusable pinned host buffer
(copy_(non_blocking=True) on the current stream); the core computes the checksum and writes the
file from that copy once the batch's event has completed. The buffers held at once are bounded
by the writer's memory bound (MSPROBE_WRITER_MEMORY_MB); a tensor that does not fit takes the
synchronous host copy.

Max/Min_except_inf_nan are needed only when Max or Min is inf/NaN, and float64 sums of squares
need rescaling only for magnitudes beyond 1e+-150 (as on the host). Both are then computed at
read time from the tensor, which the record keeps alive (up to RETAINED_BYTES, weakly beyond);
if the tensor has been freed or changed in place since it was recorded, the except-inf/nan
values are left out and the unscaled mean and norm are kept.

The code below only ever calls torch's unwrapped functions (torch._C), never the patched APIs.
"""
import contextlib
import functools
import time
import weakref

import torch

from msprobe import _core
from msprobe.core import device_path
from msprobe.core.debugger_support import writer_memory_mb
from msprobe.core.device_recorder import DeviceRecorder

_VF = torch._C._VariableFunctions
_TB = torch._C.TensorBase
_vector_norm = torch._C._linalg.linalg_vector_norm
_PLAIN_TYPES = (torch.Tensor, torch.nn.Parameter)
_DEFAULT_DISPATCH = torch.Tensor.__torch_dispatch__
_UINT8 = torch.uint8
_INF = float("inf")
_WIDE = (torch.float64, torch.complex128)  # mean / norm in float64, as on the host
_NO_CONTEXT = contextlib.nullcontext()


@functools.lru_cache(maxsize=None)
def _number_dtype(dtype):
    """The dtype the device statistics of `dtype` are computed in (the core's rule)."""
    return torch.float64 if _core.device_stats_number_dtype(str(dtype)) == "float64" else torch.float32


class _CpuEvent:
    """The forced path's event: complete once a later batch is launched or when waited for,
    so that records are read late, as from a busy device."""
    __slots__ = ("done",)

    def __init__(self):
        self.done = False

    def query(self):
        return self.done

    def synchronize(self):
        self.done = True


class Record:
    """One recorded tensor: where its numbers (or its host copy) will be."""
    __slots__ = ("batch", "group", "index", "count", "number_dtype", "tensor", "version",
                 "retained", "host", "buffer")

    def __init__(self):
        self.tensor = None
        self.retained = 0
        self.host = None
        self.buffer = None


class _Batch:
    __slots__ = ("device", "stream", "opened", "parts", "unread", "event", "complete",
                 "numbers", "offset64")

    def __init__(self, device, stream):
        self.device = device
        self.stream = stream
        self.opened = time.monotonic()
        self.parts = {torch.float32: [], torch.float64: []}
        self.unread = 0        # records of this batch the core has not read yet
        self.event = None      # recorded when launched
        self.complete = False
        self.numbers = None    # host copy of the stacked numbers (bytes once first read)
        self.offset64 = 0      # byte offset of the float64 numbers


class _HostBuffers:
    """Reusable host buffers (pinned for a real device) by power-of-two size class."""

    def __init__(self, pin, limit):
        self.pin = pin
        self.limit = limit
        self.free = {}       # size -> [uint8 tensors]
        self.in_use = 0
        self.cached = 0

    def take(self, nbytes):
        size = max(4096, 1 << (nbytes - 1).bit_length())
        bucket = self.free.get(size)
        if bucket:
            self.cached -= size
            self.in_use += size
            return bucket.pop()
        if self.in_use + size > self.limit:
            return None
        while self.cached and self.in_use + self.cached + size > self.limit:
            self._evict()
        buf = _VF.empty(size, dtype=_UINT8, pin_memory=self.pin)
        self.in_use += size
        return buf

    def give_back(self, buf):
        size = buf.numel()
        self.in_use -= size
        self.cached += size
        self.free.setdefault(size, []).append(buf)

    def _evict(self):
        for size, bucket in self.free.items():
            if bucket:
                bucket.pop()
                self.cached -= size
                return


class TorchDeviceRecorder(DeviceRecorder):
    """record / prepare / resolve / extremes / rescaled of the core's device path for torch
    tensors (msprobe/core/device_recorder.py).

    The core reads records in the order they were made; batches are launched in that order,
    so the unread records are the unread tail of each launched batch, oldest batch first.
    """

    deferred_type = Record

    def __init__(self, copy_tensors, forced):
        self.copy_tensors = copy_tensors
        self.all_tensors = forced  # the forced path (testing aid): CPU tensors too
        self.modules = {}        # device type -> torch device module
        self.open = None         # the batch new records join
        self.launched = []       # launched batches with unread records, oldest first
        self.pending = 0         # records handed to the core and not read yet
        self.done = []           # records the core has read: released at the next call
        self.retained = 0        # bytes of tensors kept alive for their extremes
        self.buffers = None      # _HostBuffers of the copy tasks
        self.unsupported = {}    # (device type, dtype) -> why such tensors take the host path
        # For tests and reports: records made, and prepare() calls that found records the
        # device had not finished yet (read later).
        self.recorded = 0
        self.waits_avoided = 0

    # ---- recording ---------------------------------------------------------------------
    def record(self, t):
        """Starts the statistics (or the host copy) of `t`; None leaves it to the host path."""
        if not isinstance(t, torch.Tensor) or (
                type(t) not in _PLAIN_TYPES
                and type(t).__torch_dispatch__ is not _DEFAULT_DISPATCH):
            return None  # fake / functional / distributed tensors have no data here
        device = t.device
        if device.type == "meta" or (device.type == "cpu" and not self.all_tensors) or (
                self.unsupported and (device.type, t.dtype) in self.unsupported):
            return None
        self._release_done()
        stream = self._stream(device)
        if stream is False:
            return None  # a device module without streams and events: the host path
        batch = self.open
        if batch is None or batch.device != device or batch.stream != stream:
            self._launch()
            batch = self.open = _Batch(device, stream)
        x = _TB.detach(t)
        rec = Record()
        if self.copy_tensors:
            if not self._copy(rec, x):
                return None
        else:
            mark = {n: len(p) for n, p in batch.parts.items()}
            try:
                self._statistics(rec, t, x, batch)
            except (RuntimeError, NotImplementedError) as e:
                # A backend without one of these kernels for this dtype (said at dispatch):
                # such tensors take the host path from now on.
                for n, p in batch.parts.items():
                    del p[mark[n]:]
                self.unsupported[(device.type, x.dtype)] = (str(e) or repr(e)).splitlines()[0]
                return None
        rec.batch = batch
        batch.unread += 1
        self.pending += 1
        self.recorded += 1
        if batch.unread >= device_path.BATCH_RECORDS:
            self._launch()
        if self.pending > device_path.MAX_PENDING_RECORDS and self.launched:
            self.launched[0].event.synchronize()  # backpressure: the device is far behind
        return rec

    def _statistics(self, rec, t, x, batch):
        dtype = x.dtype
        n = _number_dtype(dtype)
        parts = batch.parts[n]
        rec.group = n
        rec.index = len(parts)
        rec.number_dtype = n
        if _TB.dim(x) == 0:  # the value itself (|z| for complex), copied now
            v = _VF.abs(x) if _TB.is_complex(x) else x
            parts.append(_TB.to(v, n, copy=True))
            rec.count = 1
            return
        if dtype == torch.bool:
            parts.append(_VF.any(x))
            parts.append(_VF.all(x))
            rec.count = 2
            return
        v = _VF.abs(x) if _TB.is_complex(x) else x
        mn, mx = _VF.aminmax(v)
        acc = torch.float64 if dtype in _WIDE else torch.float32
        f = v if _TB.is_floating_point(v) else _TB.to(v, acc)
        if n is not acc:  # int32 / int64: stacking with float32 would round the extremes
            mx, mn = _TB.to(mx, n), _TB.to(mn, n)
        parts.append(mx)
        parts.append(mn)
        parts.append(_VF.mean(f, dtype=acc))
        parts.append(_vector_norm(f, 2, dtype=acc))
        rec.count = 4
        if _TB.is_floating_point(x) or _TB.is_complex(x):
            self._retain(rec, t)

    def _retain(self, rec, t):
        rec.version = t._version
        nbytes = _TB.numel(t) * _TB.element_size(t)
        if self.retained + nbytes <= device_path.RETAINED_BYTES:
            rec.tensor = t
            rec.retained = nbytes
            self.retained += nbytes
        else:
            rec.tensor = weakref.ref(t)

    def _copy(self, rec, x):
        if self.buffers is None:
            limit = device_path.HOST_COPY_BYTES or (writer_memory_mb() << 20)
            self.buffers = _HostBuffers(pin=not self.all_tensors, limit=limit)
        nbytes = _TB.numel(x) * _TB.element_size(x)
        buf = self.buffers.take(max(nbytes, 1))
        if buf is None:
            return False  # does not fit: the core copies it synchronously
        host = _TB.view(_TB.view(_TB.narrow(buf, 0, 0, nbytes), x.dtype), x.shape)
        _TB.copy_(host, x, non_blocking=True)
        rec.host = host
        rec.buffer = buf
        return True

    # ---- whole steps (grad_probe, the monitor) ------------------------------------------------
    @contextlib.contextmanager
    def host_views(self, tensors):
        """Host views of `tensors` while the context is open: CPU tensors as they are (unless
        forced), the others concatenated on their device and copied with one transfer per
        (device, dtype) into a reusable host buffer (pinned on a real device) of the copy pool,
        given back when the context closes."""
        out = list(tensors)
        groups = {}
        for i, t in enumerate(out):
            if t.device.type != "cpu" or self.all_tensors:
                groups.setdefault((t.device, t.dtype), []).append(i)
        if self.buffers is None and groups:
            limit = device_path.HOST_COPY_BYTES or (writer_memory_mb() << 20)
            self.buffers = _HostBuffers(pin=not self.all_tensors, limit=limit)
        taken, waits = [], []
        try:
            with torch.no_grad():
                for (device, dtype), indices in groups.items():
                    flat = _VF.cat([_TB.reshape(_TB.detach(out[i]), (-1,)) for i in indices])
                    nbytes = _TB.numel(flat) * _TB.element_size(flat)
                    buf = self.buffers.take(max(nbytes, 1))
                    if buf is None:  # beyond the copy pool: a plain synchronous copy
                        host = _TB.cpu(flat)
                    else:
                        taken.append(buf)
                        host = _TB.view(_TB.narrow(buf, 0, 0, nbytes), dtype)
                        _TB.copy_(host, flat, non_blocking=True)
                        stream = self._stream(device)
                        if stream:
                            event = self.modules[device.type].Event()
                            event.record(stream)
                            waits.append(event)
                    offset = 0
                    for i in indices:
                        n = _TB.numel(out[i])
                        out[i] = _TB.view(_TB.narrow(host, 0, offset, n), out[i].shape)
                        offset += n
            for event in waits:  # every copy was started before the first wait
                event.synchronize()
            yield out
        finally:
            for buf in taken:
                self.buffers.give_back(buf)

    # ---- batches -----------------------------------------------------------------------
    def _stream(self, device):
        """The stream the tensor's kernels run on now: None on the CPU, False when the device
        module has no streams and events."""
        if device.type == "cpu":
            return None
        mod = self.modules.get(device.type)
        if mod is None:
            try:
                mod = torch.get_device_module(device.type)
            except (RuntimeError, AttributeError):
                mod = False
            if mod is not False and not all(
                    hasattr(mod, a) for a in ("current_stream", "stream", "Event")):
                mod = False
            self.modules[device.type] = mod
        return mod.current_stream(device) if mod is not False else False

    def _on_stream(self, batch):
        """Context: work for `batch` goes to its stream (and device), wherever the caller is."""
        if batch.stream is None:
            return _NO_CONTEXT
        return self.modules[batch.device.type].stream(batch.stream)

    def _launch(self):
        """Stacks the open batch's numbers, starts their copy to the host, records the event."""
        batch = self.open
        self.open = None
        if batch is None or batch.unread == 0:
            return
        for b in self.launched:  # the forced path's "device" finishes earlier batches now
            if isinstance(b.event, _CpuEvent):
                b.event.done = True
        with self._on_stream(batch):
            groups = []
            p32, p64 = batch.parts[torch.float32], batch.parts[torch.float64]
            if p32:
                groups.append(_TB.view(_TB.to(_VF.stack(p32), torch.float32), _UINT8))
            if p64:
                batch.offset64 = len(p32) * 4
                groups.append(_TB.view(_TB.to(_VF.stack(p64), torch.float64), _UINT8))
        batch.parts = None
        if batch.stream is None:  # forced path: already on the host
            if groups:
                batch.numbers = groups[0] if len(groups) == 1 else _VF.cat(groups)
            batch.event = _CpuEvent()
        else:
            # On the stream that produced the numbers (the caller may be on another one now):
            # stack, copy to pinned memory without waiting, and mark the point with an event.
            with self._on_stream(batch):
                if groups:
                    flat = groups[0] if len(groups) == 1 else _VF.cat(groups)
                    batch.numbers = _VF.empty(flat.numel(), dtype=_UINT8, pin_memory=True)
                    _TB.copy_(batch.numbers, flat, non_blocking=True)
                batch.event = self.modules[batch.device.type].Event()
                batch.event.record(batch.stream)
        self.launched.append(batch)

    # ---- the core's calls ------------------------------------------------------------------
    def prepare(self, fresh, force):
        """How many of the oldest unread records can be read without waiting (all if force)."""
        self._release_done()
        if force or not self.launched or (
                self.open is not None
                and time.monotonic() - self.open.opened >= device_path.MAX_AGE_S):
            # While earlier batches are still on their way, the open one keeps filling.
            self._launch()
        ready = 0
        for b in self.launched:
            if not b.complete:
                if force:
                    b.event.synchronize()
                elif not b.event.query():
                    break
                b.complete = True
            ready += b.unread
        if ready < self.pending:
            self.waits_avoided += 1
        return ready

    def resolve(self, rec):
        """The record's numbers (bytes) or its host copy. The core reads records in order."""
        self._release_done()
        batch = rec.batch
        batch.unread -= 1
        self.pending -= 1
        self.done.append(rec)
        if batch.unread == 0 and self.launched and self.launched[0] is batch:
            self.launched.pop(0)
        if rec.host is not None:
            return rec.host
        numbers = batch.numbers
        if not isinstance(numbers, bytes):
            numbers = batch.numbers = _TB.numpy(numbers).tobytes()
        width = 8 if rec.group is torch.float64 else 4
        start = (batch.offset64 if width == 8 else 0) + rec.index * width
        return numbers[start:start + rec.count * width]

    def extremes(self, rec):
        """The four extremes of external_stats.h, computed now from the recorded tensor, or
        None when it is gone or has changed since (then Max/Min_except_inf_nan are left out)."""
        t = self._unchanged(rec)
        if t is None:
            return None
        with self._on_stream(rec.batch):  # overflow only: this one waits for the device
            x = _TB.detach(t)
            v = _VF.abs(x) if _TB.is_complex(x) else x
            finite = _VF.isfinite(v)
            not_nan = _VF.logical_not(_VF.isnan(v))
            four = _VF.stack([
                _VF.amax(_VF.where(finite, v, -_INF)), _VF.amin(_VF.where(finite, v, _INF)),
                _VF.amax(_VF.where(not_nan, v, -_INF)), _VF.amin(_VF.where(not_nan, v, _INF))])
            four = _TB.cpu(_TB.to(four, rec.number_dtype))
        return _TB.numpy(four).tobytes()

    def rescaled(self, rec, scale):
        """Mean and norm (two float64) of the recorded float64 values divided by `scale`, whose
        squares would overflow or underflow unscaled; None when the tensor is gone or changed."""
        t = self._unchanged(rec)
        if t is None:
            return None
        with self._on_stream(rec.batch):
            x = _TB.detach(t)
            v = _VF.abs(x) if _TB.is_complex(x) else x
            v = _VF.div(v, scale)
            two = _TB.cpu(_TB.to(_VF.stack([_VF.mean(v), _vector_norm(v, 2)]), torch.float64))
        return _TB.numpy(two).tobytes()

    def _unchanged(self, rec):
        t = rec.tensor
        if isinstance(t, weakref.ref):
            t = t()
        if t is None or t._version != rec.version:
            return None
        return t

    def _release_done(self):
        """Records the core has finished with: host buffers back to the pool, tensors freed."""
        for rec in self.done:
            if rec.buffer is not None:
                self.buffers.give_back(rec.buffer)
                rec.buffer = rec.host = None
            if rec.retained:
                self.retained -= rec.retained
                rec.retained = 0
            rec.tensor = None
        self.done.clear()


def attach(session):
    """Routes the session's accelerator tensors (and with MSPROBE_FORCE_DEVICE_PATH, its CPU
    tensors) through a TorchDeviceRecorder."""
    return TorchDeviceRecorder(session.needs_tensor_bytes, device_path.forced()).attach(session)
