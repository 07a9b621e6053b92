"""DeviceRecorder: the one protocol through which an adapter hands the core tensors it reads
late -- accelerator tensors whose statistics are computed on the device and fetched in batches
(device_path.py), or MindSpore tensors whose reads wait for the next batch on the host too.

A framework implements it once (pytorch/device_stats.py, mindspore/device_stats.py) and
`attach(session)` gives the whole object to the core (DumpSession.attach_recorder), which calls:

  resolve(value)            -> what the core reads for a deferred value: a host tensor, or
                               (numbers bytes, dtype name, shape) of external_stats.h
  prepare(fresh, force)     -> how many of the oldest deferred values resolve() can read now
                               without waiting (all of them when `force`); None: always all
  record(tensor)            -> a deferred value for an accelerator tensor met in a call's
                               values, or None to read it on the host; None: the adapter defers
                               its values itself (they arrive as `deferred_type`)
  extremes(value)           -> the four extremes except inf/NaN when Max or Min came back
                               inf/NaN, as bytes, or None; None: not written by this framework
  rescaled(value, scale)    -> mean and norm (two float64 bytes) of the values divided by scale
                               when float64 sums of squares would overflow; None: not needed

Besides the core's calls, a framework's recorder gives the features that read a whole step at once
(grad_probe) the same device path: `with recorder.host_views(tensors) as host:` -- host views of
the tensors, one device-to-host transfer per (device, dtype).

Optional hooks are class attributes left None. Values of `deferred_type` are read at the latest
when `batch_records` wait or the oldest has waited `max_age_s`, and at stop/step/close.
"""
from msprobe.core import device_path


class DeviceRecorder:
    deferred_type = None   # the class of the values the core reads late (required)
    all_tensors = False    # CPU tensors take the device path too (MSPROBE_FORCE_DEVICE_PATH)
    batch_records = device_path.BATCH_RECORDS
    max_age_s = device_path.MAX_AGE_S
    record = None
    prepare = None
    extremes = None
    rescaled = None

    def resolve(self, value):
        raise NotImplementedError

    def attach(self, session):
        """Hands this recorder to the session; returns it."""
        session.attach_recorder(self)
        return self
