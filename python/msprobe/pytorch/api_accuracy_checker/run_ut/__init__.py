"""1.2.1 path of msprobe.pytorch.run_ut (run_ut.py, multi_run_ut.py)."""
