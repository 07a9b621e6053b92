"""The PyTorch APIs run_ut may replay and name in white_list / black_list: the families of the
dump's API list (support_wrap_ops.yaml), as {family: set of names}.

The one place run_ut reads that list: the shared API catalogue of msprobe.core, which the dump
adapters read too (imported only when run_ut first needs the list).
"""
import functools


@functools.lru_cache(maxsize=1)
def supported_apis():
    """{'functional': {...}, 'tensor': {...}, 'torch': {...}, 'torch_npu': {...}, ...}."""
    from msprobe.core.api_catalogue import load_api_catalogue
    return {family: frozenset(names or ()) for family, names in load_api_catalogue("pytorch").items()}
