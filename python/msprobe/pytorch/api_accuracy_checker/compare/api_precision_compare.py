"""api_precision_compare at its 1.2.1 import path (argument parsing; the work is in C++).

    python -m msprobe.pytorch.api_accuracy_checker.compare.api_precision_compare \\
        -npu NPU_details.csv -gpu GPU_details.csv [-o out]

See msprobe.core.api_precision_compare (torch-free, used by the `msprobe` CLI).
"""
import sys

from msprobe.core.api_precision_compare import (  # noqa: F401  (re-exported names of 1.2.1)
    CompareConfig,
    _api_precision_compare,
    _api_precision_compare_command,
    _api_precision_compare_parser,
    api_precision_compare,
)

if __name__ == "__main__":
    sys.exit(_api_precision_compare())
