"""PrecisionDebugger for PyTorch: the public API of msprobe 1.2.1 (reference data-dump §2.1).
The shared part (singleton, session, start/stop/step, exit) is msprobe/core/debugger_base.py."""
import os

import torch

from msprobe import _core
from msprobe.core import api_patcher, log
from msprobe.core.debugger_base import DUMP_TASKS, FREE_BENCHMARK, DebuggerBase
from msprobe.core.debugger_support import check_argument_types, library_prefixes
from msprobe.core.errors import MsprobeException
from msprobe.pytorch import device_stats
from msprobe.pytorch.api_wrapper import ApiPatcher
from msprobe.pytorch.construct_regions import ConstructRegions
from msprobe.pytorch.hook_state import STATE
from msprobe.pytorch.module_hooks import ModuleHooks
from msprobe.pytorch.tensor_names import ModelTensorNames
from msprobe.pytorch.value_encoding import encode_torch_value, to_host

# realpath: the packaged file is trusted even when the package directory is a link farm.
DEFAULT_CONFIG = os.path.realpath(os.path.join(os.path.dirname(os.path.dirname(__file__)), "config.json"))
MSPROBE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
L2_UNSUPPORTED = ("level 'L2' (kernel dump: the ACL dump of one API's NPU kernels through torch_npu) "
                  "is not supported by this version of msprobe, with or without torch_npu; "
                  "use L1 (or L0, mix) to dump the API's inputs and outputs")


def _check_model(model):
    if model is None:
        return
    if isinstance(model, torch.nn.Module):
        return
    if isinstance(model, (list, tuple)) and model and all(
            isinstance(m, torch.nn.Module) for m in model):
        return
    raise MsprobeException(
        "The 'model' parameter must be a torch.nn.Module or list[torch.nn.Module], "
        f"got {type(model).__name__}")


class PrecisionDebugger(DebuggerBase):
    FRAMEWORK = "pytorch"
    STATE = STATE
    TASKS = DUMP_TASKS + (FREE_BENCHMARK,)

    def __init__(self, config_path=None, task=None, dump_path=None, level=None, model=None,
                 step=None):
        if self._initialized:
            return
        check_argument_types(config_path, task, dump_path, level, step)
        _check_model(model)
        self.config = _core.load_config(config_path or DEFAULT_CONFIG, "pytorch", task=task,
                                        dump_path=dump_path, level=level, step=step)
        cfg = self.config
        self._check_task(cfg, "PrecisionDebugger")
        if cfg.task == "grad_probe":
            from msprobe.pytorch.grad_probe.grad_monitor import GradientMonitor
            self.model = model
            self._open_grad_probe(GradientMonitor)
            return
        if cfg.level == "L2":
            # Not a missing dependency: 1.2.1's L2 drives torch_npu's ACL kernel dump, which this
            # version does not implement, with torch_npu installed or not.
            raise MsprobeException(L2_UNSUPPORTED)
        if model is not None:
            log.warning("passing 'model' to PrecisionDebugger is deprecated; use start(model)")
        self.model = model
        self._open_session(cfg, torch, torch.Size, encode_torch_value, to_host, MSPROBE_DIR,
                           device_stats)
        if cfg.task == "free_benchmark":
            self._init_free_benchmark(cfg)
            self._finish_init()
            return
        self.api_patcher = ApiPatcher()
        self.module_hooks = ModuleHooks()
        self.tensor_names = ModelTensorNames()
        self.modules_registered = False
        self.regions = ConstructRegions()
        if cfg.level in ("L1", "mix"):
            self.api_patcher.install()
        if cfg.level == "mix":
            self.regions.install()
        self.started_by_dataloader = False
        if cfg.enable_dataloader:
            from msprobe.pytorch import dataloader_dump
            dataloader_dump.install(self)
        if cfg.async_dump:
            log.warning("async_dump is True: records are always written asynchronously here; "
                        "statistics are computed during the call")
        self._finish_init()

    def _init_free_benchmark(self, cfg):
        """Task free_benchmark: the catalogue's APIs wrapped by the FuzzRunner (level L1: APIs only,
        as in 1.2.1's documentation; L0 and mix are read as L1)."""
        from msprobe.pytorch.free_benchmark import FuzzRunner
        if cfg.level != "L1":
            log.warning(f"free_benchmark checks APIs (level L1); level {cfg.level} is read as L1")
        self.fuzz = FuzzRunner(cfg, STATE, library_prefixes(torch) + [MSPROBE_DIR])
        self.api_patcher = api_patcher.ApiPatcher(
            "pytorch", lambda section, dotted, original, api_name: self.fuzz.make_wrapper(original, api_name))
        self.api_patcher.install()
        self.module_hooks = ModuleHooks()
        self.tensor_names = ModelTensorNames()
        self.modules_registered = True
        self.regions = ConstructRegions()
        self.started_by_dataloader = False

    def _bypassed(self, what):
        if self.config.enable_dataloader:
            log.warning(f"{what}() is ignored: enable_dataloader is set")
            return True
        return False

    def _start_impl(self, model):
        _check_model(model)
        model = model if model is not None else self.model
        level = "L1" if self.fuzz is not None else self.config.level
        if level in ("L0", "mix") and model is None:
            raise MsprobeException(
                f"missing the parameter 'model': level {level} needs start(model) "
                "(or PrecisionDebugger(model=...))")
        session = self.session
        if session.ended:
            return
        rank = -1
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            rank = torch.distributed.get_rank()
        if self.fuzz is not None:
            self.fuzz.rank = max(rank, 0)  # 1.2.1's rank column: 0 without a process group
        if level in ("L0", "mix") and not self.modules_registered:
            self.module_hooks.register(model, self._data_mode_backward())
            self.modules_registered = True
        if model is not None:
            self.tensor_names.register(session, model)
        self._switch_on(rank)

    def _data_mode_backward(self):
        modes = self.config.data_mode
        return "all" in modes or "backward" in modes or "forward" not in modes

    def _remove_hooks(self):
        self.session.step()
        self.api_patcher.uninstall()
        self.module_hooks.remove()
        self.tensor_names.remove()
        self.regions.remove()
