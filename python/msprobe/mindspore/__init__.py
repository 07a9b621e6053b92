"""MindSpore adapter: from msprobe.mindspore import PrecisionDebugger, seed_all;
from msprobe.mindspore.common.utils import MsprobeStep."""
from msprobe.mindspore.precision_debugger import PrecisionDebugger
from msprobe.mindspore.seed import seed_all

__all__ = ["PrecisionDebugger", "seed_all"]
