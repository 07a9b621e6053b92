"""Settings of the device path shared by the PyTorch and MindSpore adapters.

Tensors in accelerator memory are not copied to the host for their statistics: the framework
computes them on the device into a few numbers per tensor, which are fetched in batches and
turned into records by the core (cpp/include/msprobe/dump/external_stats.h). Tasks that need
every byte (tensor files, md5) copy tensors asynchronously instead.

MSPROBE_FORCE_DEVICE_PATH=1 is a testing aid: CPU tensors take the device path too, so the
whole dump test matrix runs through it on a machine without an accelerator. On the CPU the
"device" completes a batch only when the next one is launched (or at stop()/step()), so the
records really are read late, as on a busy GPU.
"""
import os

FORCE_ENV = "MSPROBE_FORCE_DEVICE_PATH"

# A batch of statistics is launched (one concatenation, one copy to the host) every
# BATCH_RECORDS records; the core reads it back at the latest after MAX_AGE_S seconds or at
# stop()/step().
BATCH_RECORDS = 64
MAX_AGE_S = 0.5
# At most this many records wait for the device; then the oldest batch is waited for.
MAX_PENDING_RECORDS = 1024
# Host memory for asynchronous copies (tensor and md5 tasks) held at once; a tensor that does
# not fit is copied synchronously. None: the writer's bound (MSPROBE_WRITER_MEMORY_MB, 512 MiB).
HOST_COPY_BYTES = None
# Tensors kept alive until their statistics are read, so that Max/Min_except_inf_nan can be
# computed when Max or Min comes back inf/NaN (overflow); beyond this, only weakly.
RETAINED_BYTES = 1 << 30


def forced():
    """Whether CPU tensors take the device path (testing aid)."""
    return os.environ.get(FORCE_ENV, "").strip().lower() not in ("", "0", "false", "no", "off")
