"""1.2.1's import path of the monitor: from msprobe.pytorch.monitor.module_hook import TrainerMon."""
from msprobe.pytorch.monitor.trainer_mon import TrainerMon

__all__ = ["TrainerMon"]
