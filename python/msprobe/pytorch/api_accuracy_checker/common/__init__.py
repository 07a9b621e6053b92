"""1.2.1 path of msprobe.pytorch.run_ut.config (common/config.py)."""
