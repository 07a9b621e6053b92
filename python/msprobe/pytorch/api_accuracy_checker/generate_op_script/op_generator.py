"""op_generate at its 1.2.1 import path:

    python -m msprobe.pytorch.api_accuracy_checker.generate_op_script.op_generator -i config_op.json -o DIR

See msprobe.core.op_generate (the `msprobe -f pytorch op_generate` command).
"""
import sys

from msprobe.core.op_generate import (  # noqa: F401  (re-exported names of 1.2.1)
    _op_generator_parser,
    _run_operator_generate_commond,
    main,
    op_generate,
)

if __name__ == "__main__":
    sys.exit(main())
