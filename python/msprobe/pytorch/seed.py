"""seed_all(seed, mode, rm_dropout): reproducible runs (reference data-dump §2.1)."""
import os
import random

import numpy as np
import torch

from msprobe.core import log
from msprobe.core.debugger_support import check_seed_arguments


def _remove_dropout():
    import torch.nn.functional as F

    def no_dropout(original):
        def dropout(input, p=0.5, training=True, inplace=False):
            return original(input, 0.0, training, inplace)
        dropout.__msprobe_no_dropout__ = True
        return dropout

    for name in ("dropout", "dropout2d", "dropout3d"):
        fn = getattr(F, name)
        if not getattr(fn, "__msprobe_no_dropout__", False):
            setattr(F, name, no_dropout(fn))


def seed_all(seed=1234, mode=False, rm_dropout=True):
    check_seed_arguments(seed, mode, rm_dropout)
    try:
        random.seed(seed)
        os.environ["PYTHONHASHSEED"] = str(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        cuda_version = torch.version.cuda
        if cuda_version and tuple(int(x) for x in cuda_version.split(".")[:2]) >= (10, 2):
            os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
        os.environ["HCCL_DETERMINISTIC"] = str(mode)
        torch.use_deterministic_algorithms(mode)
        if torch.cuda.is_available():
            torch.cuda.manual_seed_all(seed)
            torch.cuda.manual_seed(seed)
            torch.backends.cudnn.deterministic = True
            torch.backends.cudnn.benchmark = False
        if rm_dropout:
            _remove_dropout()
        log.info(f"seed_all: seed {seed}, deterministic {mode}, dropout removed: {rm_dropout}")
    except Exception as e:  # the original only logs failures here
        log.error(f"seed_all failed: {e}")
