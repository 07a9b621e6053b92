"""1.2.1 path of msprobe.pytorch.run_ut.multi_run_ut (`python -m` and imports); see the package docstring."""
import sys

from msprobe.pytorch.run_ut import multi_run_ut as _impl

if __name__ == "__main__":
    sys.exit(_impl.main())
# Imported under this name: be the module itself, so that reading or setting its attributes
# reaches the code that runs.
sys.modules[__name__] = _impl
