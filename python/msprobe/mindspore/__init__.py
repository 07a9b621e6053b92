"""MindSpore adapter: from msprobe.mindspore import PrecisionDebugger, seed_all;
from msprobe.mindspore.common.utils import MsprobeStep.
compare: msprobe.mindspore.compare.ms_compare.ms_compare and
msprobe.mindspore.compare.distributed_compare.ms_compare_distributed (1.2.1's paths), also
exported here.

The exports are imported on first use (PEP 562), so that the subpackages that need no MindSpore
(run_ut on a tensor dump replays PyTorch only) do not pay for importing it."""
import importlib

_EXPORTS = {
    "PrecisionDebugger": "msprobe.mindspore.precision_debugger",
    "seed_all": "msprobe.mindspore.seed",
    "ms_compare": "msprobe.mindspore.compare.ms_compare",
    "ms_compare_distributed": "msprobe.mindspore.compare.distributed_compare",
}

__all__ = ["PrecisionDebugger", "seed_all", "ms_compare", "ms_compare_distributed"]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'msprobe.mindspore' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
