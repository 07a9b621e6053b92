"""The API catalogue: which framework APIs msprobe wraps, read from each framework's editable
support_wrap_ops.yaml, and the one table saying, per yaml section, the dump.json prefix of its
entries and the objects whose attributes hold the APIs. Dumping (the API patcher) and run_ut's
replay read the same catalogue: `load_api_catalogue("pytorch")`."""
import importlib
import os
from collections import namedtuple

from msprobe.core.yaml_file import YamlFileError, load_yaml_file

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# prefix: the entry name's first part ("Tensor.add.0.forward"). owners: dotted paths of the
# objects patched for the section; a section without owners is listed for users who edit the file
# but nothing patches it (see docs/compatibility.md, "Aten prefix").
Section = namedtuple("Section", "prefix owners")

SECTIONS = {
    "pytorch": {
        "functional": Section("Functional", ("torch.nn.functional",)),
        "tensor": Section("Tensor", ("torch.Tensor",)),
        "torch": Section("Torch", ("torch",)),
        "_VF": Section("VF", ("torch._VF",)),
        "torch_npu": Section("NPU", ()),
        "aten": Section("Aten", ()),
        # Both: user code calls either name of the same collective.
        "distributed": Section("Distributed", ("torch.distributed",
                                               "torch.distributed.distributed_c10d")),
    },
    "mindspore": {
        "tensor": Section("Tensor", ("mindspore.Tensor",
                                     "mindspore.common._stub_tensor.StubTensor")),
        "ops": Section("Functional", ("mindspore.ops",)),
        "mint.ops": Section("Mint", ("mindspore.mint",)),
        "mint.nn.functional": Section("MintFunctional", ("mindspore.mint.nn.functional",)),
        "communication.comm_func": Section("Distributed",
                                           ("mindspore.communication.comm_func",)),
    },
}


def default_path(framework):
    return os.path.join(PACKAGE_DIR, framework, "support_wrap_ops.yaml")


def load_api_catalogue(framework, path=None):
    """{section: [API names]} of the framework's list (its packaged support_wrap_ops.yaml unless
    `path` is given). A malformed file or an unknown section raises ValueError, one line naming
    the file and the section or item."""
    sections = SECTIONS[framework]
    path = path or default_path(framework)
    try:
        data = load_yaml_file(path)
    except YamlFileError as e:
        raise ValueError(str(e)) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the supported API list must map sections "
                         f"({', '.join(sections)}) to lists of API names")
    for key, names in data.items():
        if key not in sections:
            raise ValueError(f"{path}: unknown section '{key}'; allowed: {', '.join(sections)}")
        if names is None:
            data[key] = []
            continue
        if not isinstance(names, list):
            raise ValueError(f"{path}: section '{key}' must be a list of API names, "
                             f"got {type(names).__name__}")
        for i, n in enumerate(names):
            if not isinstance(n, str) or not n or any(c.isspace() for c in n):
                raise ValueError(f"{path}: section '{key}' item {i + 1} must be an API name "
                                 f"(a string without spaces), got {n!r}")
    return data


def resolve_owner(dotted):
    """The object at a dotted path (a module, or an attribute of one), or None when the installed
    framework does not have it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None
