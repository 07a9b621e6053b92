"""1.2.1 path of msprobe.pytorch.run_ut.config (CheckerConfig)."""
import sys

from msprobe.pytorch.run_ut import config as _impl

sys.modules[__name__] = _impl
