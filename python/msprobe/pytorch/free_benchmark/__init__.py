"""free_benchmark for PyTorch (1.2.1's task, docs/free_benchmark.md): each selected API call is
run again on perturbed inputs (perturbation.py, framework ops on the tensor's device) and the C++
core (msprobe._core.FreeBenchmarkChecker) judges the two outputs and writes free_benchmark.csv.
The wrappers and the handlers are in runner.py."""
from msprobe.pytorch.free_benchmark.runner import FuzzRunner

__all__ = ["FuzzRunner"]
