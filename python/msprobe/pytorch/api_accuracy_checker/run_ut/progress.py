"""The progress bar lives in msprobe.core.progress (shared with compare, which must not import
torch); this name is kept for run_ut's imports."""
from msprobe.core.progress import ProgressBar  # noqa: F401
