"""free_benchmark for MindSpore PyNative (1.2.1's task, docs/free_benchmark.md): each selected API
call is run again on perturbed inputs (perturbation.py, MindSpore ops on the tensor's device) and
the C++ core (msprobe._core.FreeBenchmarkChecker, shared with PyTorch) judges the two outputs and
writes free_benchmark.csv. The wrappers, handlers and API selection are in runner.py and
selection.py."""
from msprobe.mindspore.free_benchmark.runner import FuzzRunner

__all__ = ["FuzzRunner"]
