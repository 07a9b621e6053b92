"""module_dump(module, dump_name) / module_dump_end(): dump one module as a single unit
("Module.{dump_name}.{Class}.forward.{n}") with API recording suspended inside it."""
import torch

from msprobe.core.errors import MsprobeException
from msprobe.pytorch.module_hooks import ModuleHooks

_active = {"hooks": None}


def module_dump(module, dump_name):
    from msprobe.pytorch.precision_debugger import PrecisionDebugger
    if not isinstance(module, torch.nn.Module):
        raise MsprobeException("module_dump: 'module' must be a torch.nn.Module, "
                               f"got {type(module).__name__}")
    if not isinstance(dump_name, str) or not dump_name:
        raise MsprobeException("module_dump: 'dump_name' must be a non-empty str")
    debugger = PrecisionDebugger._get("module_dump")
    if _active["hooks"] is not None:
        module_dump_end()
    debugger.api_patcher.uninstall()
    hooks = ModuleHooks()
    hooks.register_one(module, f"Module.{dump_name}.{module.__class__.__name__}.",
                        debugger._data_mode_backward())
    _active["hooks"] = hooks


def module_dump_end():
    from msprobe.pytorch.precision_debugger import PrecisionDebugger
    debugger = PrecisionDebugger._get("module_dump_end")
    hooks = _active["hooks"]
    if hooks is not None:
        hooks.remove()
        _active["hooks"] = None
    if debugger.config.level in ("L1", "mix"):
        debugger.api_patcher.install()
