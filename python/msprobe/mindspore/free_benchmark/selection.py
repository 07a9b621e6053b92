"""Which MindSpore APIs free_benchmark checks: free_benchmark_ops.yaml (1.2.1's selection, in the
sections of the API catalogue), narrowed by the config's `list` of full API names as 1.2.1 reads
them ("mindspore.ops.bmm", "mindspore.Tensor.add", "mindspore.mint.sub",
"mindspore.mint.nn.functional.relu")."""
import os

OPS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "free_benchmark_ops.yaml")
# The dump's prefix of each section -> the module path 1.2.1's list names.
_FULL_PREFIX = {"Tensor": "mindspore.Tensor.", "Functional": "mindspore.ops.", "Mint": "mindspore.mint.",
                "MintFunctional": "mindspore.mint.nn.functional."}


def full_name(api_name):
    """"Mint.sub" -> "mindspore.mint.sub" (None for sections 1.2.1 does not check)."""
    prefix, _, rest = api_name.partition(".")
    full = _FULL_PREFIX.get(prefix)
    return full + rest if full else None


def selector(api_list):
    """selected(api_name): every API of the file when `api_list` is empty, else those it names."""
    wanted = frozenset(api_list)
    if not wanted:
        return lambda api_name: full_name(api_name) is not None
    return lambda api_name: full_name(api_name) in wanted


