"""fb_model.py run with our free_benchmark, printing for every output to_cpu compares the errors
its verdict is taken on (one JSON line each: {"call", "step", "abs_err", "rel_err", "err_balance",
"numel"}), so that a test can tell a verdict the CPU's kernels decide from a clear one:

    python fb_margins.py CONFIG_JSON [fb_model.py's arguments]
"""
import json
import os
import runpy
import sys

import torch

from msprobe.pytorch.free_benchmark import runner

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fb_model.py")
_compare_cpu = runner.FuzzRunner._compare_cpu


def compare_cpu(self, name, step, out, cpu_out):
    if isinstance(out, torch.Tensor) and isinstance(cpu_out, torch.Tensor):
        r = self.checker.benchmark_tensor(out.detach().cpu(), cpu_out.detach().cpu())
        print(json.dumps({"call": name, "step": step, "abs_err": r.abs_err, "rel_err": r.rel_err,
                          "err_balance": r.err_balance, "numel": out.numel()}), flush=True)
    return _compare_cpu(self, name, step, out, cpu_out)


runner.FuzzRunner._compare_cpu = compare_cpu
sys.argv = [MODEL] + sys.argv[1:]
runpy.run_path(MODEL, run_name="__main__")
