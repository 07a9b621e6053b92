"""op_generate at its 1.2.1 import path (see msprobe.core.op_generate)."""
