"""The training monitor (1.2.1's TrainerMon, docs 19): from msprobe.pytorch import TrainerMon."""
