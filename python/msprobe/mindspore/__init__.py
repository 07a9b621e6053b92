"""MindSpore adapter: from msprobe.mindspore import PrecisionDebugger, seed_all;
from msprobe.mindspore.common.utils import MsprobeStep.
compare: msprobe.mindspore.compare.ms_compare.ms_compare and
msprobe.mindspore.compare.distributed_compare.ms_compare_distributed (1.2.1's paths), also
exported here."""
from msprobe.mindspore.compare.distributed_compare import ms_compare_distributed
from msprobe.mindspore.compare.ms_compare import ms_compare
from msprobe.mindspore.precision_debugger import PrecisionDebugger
from msprobe.mindspore.seed import seed_all

__all__ = ["PrecisionDebugger", "seed_all", "ms_compare", "ms_compare_distributed"]
