"""python -m msprobe.pytorch.run_ut ARGS: the same as `msprobe -f pytorch run_ut ARGS`."""
import sys

from msprobe.pytorch.run_ut.run_ut import main

if __name__ == "__main__":
    sys.exit(main())
