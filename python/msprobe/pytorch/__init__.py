"""PyTorch adapter: from msprobe.pytorch import PrecisionDebugger, seed_all, module_dump,
module_dump_end, compare, compare_distributed, TrainerMon."""
from msprobe.pytorch.compare.distributed_compare import compare_distributed
from msprobe.pytorch.compare.pt_compare import compare
from msprobe.pytorch.module_dump import module_dump, module_dump_end
from msprobe.pytorch.monitor.trainer_mon import TrainerMon
from msprobe.pytorch.precision_debugger import PrecisionDebugger
from msprobe.pytorch.seed import seed_all

__all__ = ["PrecisionDebugger", "seed_all", "module_dump", "module_dump_end", "compare", "compare_distributed",
           "TrainerMon"]
