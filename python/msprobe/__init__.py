"""msprobe: precision debugging for deep-learning training (drop-in for msprobe 1.2.1), C++ core."""
__version__ = "0.1.0"

__all__ = ["GradComparator"]   # `from msprobe import *`, as 1.2.1 documents for the comparator


def __getattr__(name):
    """GradComparator is imported on first use, so that `import msprobe` stays light."""
    if name == "GradComparator":
        from msprobe.core.grad_probe.grad_compare import GradComparator
        return GradComparator
    raise AttributeError(f"module 'msprobe' has no attribute {name!r}")
