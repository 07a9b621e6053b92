"""The PyTorch APIs run_ut may replay and name in white_list / black_list: the families of the
dump's API list (support_wrap_ops.yaml), as {family: set of names}.

The one place run_ut reads that list, so that it can move to the shared API catalogue of
msprobe.core without touching the rest of run_ut. Until then it asks the PyTorch dump adapter,
which owns the yaml file (imported here only, and only when run_ut first needs the list).
"""
import functools


@functools.lru_cache(maxsize=1)
def supported_apis():
    """{'functional': {...}, 'tensor': {...}, 'torch': {...}, 'torch_npu': {...}, ...}."""
    from msprobe.pytorch.api_wrapper import load_api_list
    return {family: frozenset(names or ()) for family, names in load_api_list().items()}
