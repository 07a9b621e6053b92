"""msprobe: precision debugging for deep-learning training (drop-in for msprobe 1.2.1), C++ core."""
__version__ = "0.1.0"
