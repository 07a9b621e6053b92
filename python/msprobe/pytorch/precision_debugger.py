"""PrecisionDebugger for PyTorch: the public API of msprobe 1.2.1 (reference data-dump §2.1)."""
import atexit
import os

import numpy as np
import torch

from msprobe import _core
from msprobe.core import log
from msprobe.core.debugger_support import (ProblemReport, check_argument_types, library_prefixes,
                                           overflow_reporter, report_repairs, writer_memory_mb)
from msprobe.core.errors import MsprobeException
from msprobe.pytorch.api_wrapper import ApiPatcher
from msprobe.pytorch import device_stats
from msprobe.pytorch.construct_regions import ConstructRegions
from msprobe.pytorch.hook_state import STATE
from msprobe.pytorch.module_hooks import ModuleHooks
from msprobe.pytorch.value_encoding import encode_torch_value, to_host

# realpath: the packaged file is trusted even when the package directory is a link farm.
DEFAULT_CONFIG = os.path.realpath(os.path.join(os.path.dirname(os.path.dirname(__file__)), "config.json"))
DUMP_TASKS = ("statistics", "tensor", "overflow_check")
MSPROBE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


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


class PrecisionDebugger:
    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance._initialized = False
        return cls._instance

    def __init__(self, config_path=None, task=None, dump_path=None, level=None, model=None,
                 step=None):
        if self._initialized:
            return
        check_argument_types(config_path, task, dump_path, level, step)
        _check_model(model)
        self.config = _core.load_config(config_path or DEFAULT_CONFIG, "pytorch", task=task,
                                        dump_path=dump_path, level=level, step=step)
        cfg = self.config
        if cfg.task not in DUMP_TASKS:
            raise MsprobeException(
                f"task '{cfg.task}' is not supported by this msprobe's PrecisionDebugger; "
                f"supported tasks: {', '.join(DUMP_TASKS)}")
        if cfg.level == "L2":
            raise MsprobeException(
                "level 'L2' (kernel dump) needs torch_npu on an Ascend NPU; use L0, L1 or mix")
        if model is not None:
            log.warning("passing 'model' to PrecisionDebugger is deprecated; use start(model)")
        self.model = model
        self.session = _core.DumpSession(cfg, "pytorch", writer_memory_mb())
        self.session.set_types(torch.Size, np.generic, encode_torch_value, to_host, MSPROBE_DIR)
        if cfg.task == "overflow_check":
            self.session.set_overflow_reporting(overflow_reporter(), library_prefixes(torch))
        self.device_recorder = device_stats.attach(self.session)  # accelerator tensors
        self.api_patcher = ApiPatcher()
        self.module_hooks = ModuleHooks()
        self.modules_registered = False
        self.problems = ProblemReport()
        STATE.session = self.session
        STATE.on_error = self._internal_error
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
        atexit.register(self._at_exit)
        self._initialized = True

    # ---- errors never break training -------------------------------------------------------
    def _internal_error(self, exc):
        STATE.active = False
        self.problems.internal_error(exc)

    def _report_disabled(self):
        self.problems.session_disabled(self.session)

    def _at_exit(self):
        STATE.active = False
        if getattr(self, "session", None) is not None:
            self.session.close()
            self._report_disabled()

    # ---- public API ----------------------------------------------------------------------
    @classmethod
    def _get(cls, what):
        if cls._instance is None or not cls._instance._initialized:
            raise MsprobeException(f"PrecisionDebugger must be created before calling {what}()")
        return cls._instance

    @classmethod
    def start(cls, model=None):
        self = cls._get("start")
        if self.config.enable_dataloader:
            log.warning("start() is ignored: enable_dataloader is set")
            return
        self._start_impl(model)

    def _start_impl(self, model):
        _check_model(model)
        model = model if model is not None else self.model
        level = self.config.level
        if level in ("L0", "mix") and model is None:
            raise MsprobeException(
                f"missing the parameter 'model': level {level} needs start(model) "
                "(or PrecisionDebugger(model=...))")
        if level not in ("L0", "mix") and model is not None and not self.modules_registered:
            log.info(f"level {level} records APIs only; the model passed to start() is ignored")
        session = self.session
        if session.disabled or session.ended:
            return
        rank = -1
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            rank = torch.distributed.get_rank()
        if level in ("L0", "mix") and not self.modules_registered:
            self.module_hooks.register(model, self._data_mode_backward())
            self.modules_registered = True
        was_on = session.switch_on
        on = session.start(rank)
        report_repairs(session)
        STATE.active = on and not self.problems.reported
        self._report_disabled()
        if on and not was_on:
            log.info(f"Dump switch is turned on at step {session.current_step}. "
                     f"Dump data will be saved in {session.rank_dir}.")
        if session.ended:
            log.info("msprobe ends successfully (" + (
                "overflow_nums reached" if self.session.overflow_terminated
                else "the last configured step is done") + ")")

    def _data_mode_backward(self):
        modes = self.config.data_mode
        return "all" in modes or "backward" in modes or not (
            "forward" in modes)

    @classmethod
    def stop(cls):
        self = cls._get("stop")
        if self.config.enable_dataloader:
            log.warning("stop() is ignored: enable_dataloader is set")
            return
        self._stop_impl()

    def _stop_impl(self):
        STATE.active = False
        self.session.stop()
        self._report_disabled()

    @classmethod
    def forward_backward_dump_end(cls):
        log.warning("forward_backward_dump_end() is deprecated; it is the same as stop()")
        cls.stop()

    @classmethod
    def step(cls):
        self = cls._get("step")
        if self.config.enable_dataloader:
            log.warning("step() is ignored: enable_dataloader is set")
            return
        self._step_impl()

    def _step_impl(self):
        STATE.active = False
        self.session.step()
        self._report_disabled()

    @classmethod
    def _reset_for_tests(cls):
        """Removes every hook and forgets the instance (not part of the original's API)."""
        self = cls._instance
        if self is None:
            return
        if getattr(self, "_initialized", False):
            STATE.active = False
            self.session.step()
            self.api_patcher.uninstall()
            self.module_hooks.remove()
            self.regions.remove()
            atexit.unregister(self._at_exit)
            STATE.session = None
        cls._instance = None
