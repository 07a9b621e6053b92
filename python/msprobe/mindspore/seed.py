"""seed_all(seed, mode, rm_dropout) for MindSpore (reference data-dump §2.2; seed doc §6.3)."""
import os
import random

import mindspore as ms

from msprobe.core import log
from msprobe.core.debugger_support import check_seed_arguments


def _no_dropout_classes():
    """Dropout variants that keep everything; created lazily from the classes in place now."""
    from mindspore.mint import nn as mint_nn

    def keep_all_primitive(base):
        class KeepAll(base):
            def __init__(self, keep_prob=0.5, *args, **kwargs):
                super().__init__(1.0, *args, **kwargs)
        KeepAll.__name__ = KeepAll.__qualname__ = base.__name__
        KeepAll.__msprobe_no_dropout__ = True
        return KeepAll

    class KeepAllDropoutExt(mint_nn.Dropout):
        def __init__(self, p=0.5, *args, **kwargs):
            super().__init__(0.0, *args, **kwargs)
    KeepAllDropoutExt.__name__ = KeepAllDropoutExt.__qualname__ = mint_nn.Dropout.__name__
    KeepAllDropoutExt.__msprobe_no_dropout__ = True

    def dropout(input, p=0.5, training=True, *args, **kwargs):  # noqa: A002 (MindSpore's name)
        return input
    dropout.__msprobe_no_dropout__ = True
    return keep_all_primitive, KeepAllDropoutExt, dropout


def _remove_dropout():
    from mindspore import ops
    from mindspore.mint import nn as mint_nn
    keep_all_primitive, dropout_ext, dropout_fn = _no_dropout_classes()
    for name in ("Dropout", "Dropout2D", "Dropout3D"):
        cls = getattr(ops, name, None)
        if cls is None or getattr(cls, "__msprobe_no_dropout__", False):
            continue
        replacement = keep_all_primitive(cls)
        setattr(ops, name, replacement)
        if getattr(ops.operations, name, None) is cls:
            setattr(ops.operations, name, replacement)
    if not getattr(mint_nn.Dropout, "__msprobe_no_dropout__", False):
        mint_nn.Dropout = dropout_ext
    if not getattr(mint_nn.functional.dropout, "__msprobe_no_dropout__", False):
        mint_nn.functional.dropout = dropout_fn


def _set_deterministic(mode):
    try:
        if hasattr(ms, "set_deterministic"):
            ms.set_deterministic(mode)
        else:  # pragma: no cover - MindSpore before 2.6
            ms.set_context(deterministic="ON" if mode else "OFF")
    except RuntimeError as e:
        # MindSpore >= 2.6 accepts one setting per process (a second seed_all, or a script that
        # set it itself); the first one stays in force.
        log.warning(f"seed_all: deterministic computing left as it was: {e}")


def seed_all(seed=1234, mode=False, rm_dropout=True):
    """Fixes MindSpore's and Python's random seeds; mode=True turns on deterministic kernels and
    deterministic HCCL reductions; rm_dropout=True makes the dropouts created afterwards keep
    every element (ops.Dropout/Dropout2D/Dropout3D, mint.nn.Dropout, mint.nn.functional.dropout)."""
    check_seed_arguments(seed, mode, rm_dropout)
    os.environ["PYTHONHASHSEED"] = str(seed)
    ms.set_seed(seed)
    random.seed(seed)
    _set_deterministic(mode)
    os.environ["HCCL_DETERMINISTIC"] = str(mode)
    if rm_dropout:
        _remove_dropout()
    log.info(f"seed_all: seed {seed}, deterministic {mode}, dropout removed: {rm_dropout}")
