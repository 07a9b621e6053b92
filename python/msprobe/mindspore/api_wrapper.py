"""Wrapping MindSpore APIs (Tensor methods, ops, mint, mint.nn.functional, comm_func) for
levels L1 and mix, from the editable list support_wrap_ops.yaml.

A wrapper costs one attribute check while the probe is off. While on, it makes one call into the
C++ session before the API and one after it; under a gradient recording it also passes the
call's tensor inputs and outputs through a backward-capture primitive (see backward.py). Tensors
are read later (value_encoding.py), except before an in-place API runs.
"""
import functools
import os

import yaml

from msprobe.core import log
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.recorded_call import recorded_call

SUPPORT_WRAP_OPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "support_wrap_ops.yaml")

# yaml section -> dump.json prefix
SECTIONS = {
    "tensor": "Tensor",
    "ops": "Functional",
    "mint.ops": "Mint",
    "mint.nn.functional": "MintFunctional",
    "communication.comm_func": "Distributed",
}


def _owners(section):
    import mindspore as ms
    if section == "tensor":
        owners = [ms.Tensor]
        try:
            from mindspore.common._stub_tensor import StubTensor
            owners.append(StubTensor)
        except ImportError:
            pass
        return owners
    if section == "ops":
        return [ms.ops]
    if section == "mint.ops":
        return [ms.mint]
    if section == "mint.nn.functional":
        from mindspore.mint.nn import functional
        return [functional]
    if section == "communication.comm_func":
        try:
            from mindspore.communication import comm_func
        except ImportError:
            return []
        return [comm_func]
    return []


def load_api_list(path=SUPPORT_WRAP_OPS):
    """Reads and checks the API list; returns {section: [names]}. Raises ValueError with the file,
    the section and what is allowed when the file is malformed."""
    try:
        with open(path) as f:
            data = yaml.safe_load(f)
    except OSError as e:
        raise ValueError(f"{path}: cannot read the supported API list: {e.strerror}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise ValueError(f"{path}: not valid YAML{where}: {getattr(e, 'problem', e)}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the supported API list must map sections "
                         f"({', '.join(SECTIONS)}) to lists of API names")
    for key, names in data.items():
        if key not in SECTIONS:
            raise ValueError(f"{path}: unknown section '{key}'; allowed: {', '.join(SECTIONS)}")
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


def is_inplace(section, name):
    """APIs that modify an argument in place: their arguments must stay the caller's objects, so
    no backward capture is attached to them (it would hand the API copies)."""
    short = name.rsplit(".", 1)[-1]
    if short == "__setitem__" or (short.startswith("__i") and short.endswith("__")
                                   and short not in ("__index__", "__int__", "__invert__")):
        return True
    if short.endswith("_") and not short.endswith("__"):
        return True
    if section == "ops" and (short.startswith("assign") or short.startswith("scatter")):
        return True
    return False


def make_wrapper(original, api_name, inplace):
    state = STATE

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        if not state.active or state.busy:
            return original(*args, **kwargs)
        # In-place APIs: their arguments are read before they change, and get no backward
        # capture (it would hand the API copies).
        return recorded_call(original, api_name, args, kwargs, inplace, not inplace)

    wrapper.__msprobe_original__ = original
    return wrapper


def _wait_comm(original, api_name):
    """comm_func with async_op: wait for the result before it is recorded."""
    @functools.wraps(original)
    def call(*args, **kwargs):
        out = original(*args, **kwargs)
        if STATE.active and (kwargs.get("async_op") or api_name.endswith((".isend", ".irecv"))):
            handle = out[1] if isinstance(out, tuple) and len(out) == 2 else out
            if hasattr(handle, "wait"):
                handle.wait()
        return out
    return call


class ApiPatcher:
    """Installs and removes the wrappers; remembers the originals."""

    def __init__(self, api_list_path=SUPPORT_WRAP_OPS):
        self.api_list_path = api_list_path
        self.originals = []  # (owner, attr, original)
        self.installed = False

    def install(self):
        if self.installed:
            return
        api_list = load_api_list(self.api_list_path)
        for section, names in api_list.items():
            prefix = SECTIONS[section]
            for owner in _owners(section):
                for name in dict.fromkeys(names):
                    self._patch(owner, section, name, f"{prefix}.{name}")
        self.installed = True

    def _patch(self, owner, section, dotted, api_name):
        parts = dotted.split(".")
        for p in parts[:-1]:
            owner = getattr(owner, p, None)
            if owner is None:
                return
        attr = parts[-1]
        original = getattr(owner, attr, None)
        if not callable(original) or hasattr(original, "__msprobe_original__"):
            return
        target = _wait_comm(original, api_name) if section == "communication.comm_func" else original
        wrapper = make_wrapper(target, api_name, is_inplace(section, dotted))
        wrapper.__msprobe_original__ = original
        try:
            setattr(owner, attr, wrapper)
        except (AttributeError, TypeError):
            log.warning(f"cannot wrap {api_name}; it is not dumped")
            return
        self.originals.append((owner, attr, original))

    def uninstall(self):
        for owner, attr, original in reversed(self.originals):
            try:
                setattr(owner, attr, original)
            except (AttributeError, TypeError):
                pass
        self.originals.clear()
        self.installed = False

    def suspended(self):
        """Context manager: the original APIs are in place inside it (jit compilation)."""
        return _Suspended(self)


class _Suspended:
    __slots__ = ("patcher", "saved")

    def __init__(self, patcher):
        self.patcher = patcher
        self.saved = None

    def __enter__(self):
        self.saved = []
        for owner, attr, _ in self.patcher.originals:
            self.saved.append((owner, attr, owner.__dict__.get(attr) if isinstance(owner, type)
                               else getattr(owner, attr)))
        for owner, attr, original in self.patcher.originals:
            setattr(owner, attr, original)
        return self

    def __exit__(self, *exc):
        for owner, attr, wrapper in self.saved:
            if wrapper is not None:
                setattr(owner, attr, wrapper)
        return False
