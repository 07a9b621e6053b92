"""PrecisionDebugger for MindSpore (PyNative): the public API of msprobe 1.2.1
(reference data-dump §2.2, §5.4; seed doc 06.data_dump_MindSpore.md §6)."""
import atexit
import os

import numpy as np

import mindspore as ms

from msprobe import _core
from msprobe.core import log
from msprobe.core.debugger_support import (ProblemReport, check_argument_types, library_prefixes,
                                           overflow_reporter, report_repairs, writer_memory_mb)
from msprobe.core.errors import MsprobeException
from msprobe.mindspore.api_wrapper import ApiPatcher
from msprobe.mindspore.cell_hooks import CellHooks
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore import device_stats, kernel_dump
from msprobe.mindspore.jit_capture import JitCapture
from msprobe.mindspore.pipeline import PIPELINE
from msprobe.mindspore.primitive_hooks import PrimitiveHooks
from msprobe.mindspore.value_encoding import (Deferred, encode_ms_value, resolve_deferred,
                                              to_host)

DEFAULT_CONFIG = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                              "config.json")
MSPROBE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
DUMP_TASKS = ("statistics", "tensor", "overflow_check")
NOT_CREATED = "PrecisionDebugger instance is not created."
STOP_WITHOUT_START = "debugger.start() is not set in the current scope."


def _check_model(model):
    if model is None or isinstance(model, ms.nn.Cell):
        return
    bad = model
    if isinstance(model, (list, tuple)):
        bad = next((m for m in model if not isinstance(m, ms.nn.Cell)), None)
        if bad is None and model:
            return
    raise MsprobeException(
        "The 'model' parameter must be a mindspore.nn.Cell or list[mindspore.nn.Cell] type, "
        f"currently there is a {type(bad)} type.")


def _current_rank():
    try:
        from mindspore.communication import GlobalComm, get_rank
        if GlobalComm.INITED:
            return int(get_rank())
    except Exception:
        pass
    return -1


class PrecisionDebugger:
    _instance = None
    kernel = False  # L2/static graph: the KernelDump, or None (nothing to do); False: hooks

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance._initialized = False
        return cls._instance

    def __init__(self, config_path=None, task=None, dump_path=None, level=None, step=None):
        if self._initialized:
            return
        check_argument_types(config_path, task, dump_path, level, step)
        config_path = config_path or DEFAULT_CONFIG
        cfg = _core.load_config(config_path, "mindspore", task=task, dump_path=dump_path,
                                level=level, step=step)
        if not os.path.isabs(cfg.dump_path):
            # 1.2.1 (MindSpore) records dump_data_dir as an absolute path.
            cfg = _core.load_config(config_path, "mindspore", task=task,
                                    dump_path=os.path.abspath(cfg.dump_path), level=level,
                                    step=step)
        self.config = cfg
        if cfg.task not in DUMP_TASKS:
            raise MsprobeException(
                f"task '{cfg.task}' is not supported by this msprobe's MindSpore PrecisionDebugger; "
                f"supported tasks: {', '.join(DUMP_TASKS)}")
        # L2 and static graph: MindSpore dumps the kernels itself (kernel_dump.py).
        route = kernel_dump.check_routing(cfg, kernel_dump.execution_mode())
        if route is not None:
            self.kernel = kernel_dump.KernelDump(cfg) if route == "kernel" else None
            if route == "adump":
                log.warning(f"{kernel_dump.ADUMP_MESSAGE} (level L2 with one API name in 'list' "
                            "needs msprobe's adump build on Ascend; nothing is dumped)")
            self._initialized = True
            return
        self.session = _core.DumpSession(cfg, "mindspore", writer_memory_mb())
        self.session.set_types(None, np.generic, encode_ms_value, to_host, MSPROBE_DIR)
        self.session.set_deferral(Deferred, resolve_deferred)  # see value_encoding.py
        if cfg.task == "overflow_check":
            self.session.set_overflow_reporting(overflow_reporter(), library_prefixes(ms))
        self.device_recorder = device_stats.attach(self.session)  # accelerator tensors
        modes = cfg.data_mode
        STATE.want_backward = "all" in modes or "backward" in modes or "forward" not in modes
        STATE.construct_all = cfg.level == "mix"
        STATE.hook_backward = STATE.want_backward or STATE.construct_all
        self.api_patcher = ApiPatcher()
        self.cell_hooks = CellHooks()
        self.primitive_hooks = PrimitiveHooks()
        # overflow_check leaves out Primitives and Jit functions, as 1.2.1 does (its doc 13).
        self.jit_capture = JitCapture(self.api_patcher, record=cfg.task != "overflow_check")
        self.first_start = True
        self.start_called = False
        self.problems = ProblemReport()
        self.end_reported = False
        STATE.session = self.session
        STATE.on_error = self._internal_error
        if cfg.level in ("L1", "mix"):
            self.api_patcher.install()
        atexit.register(self._at_exit)
        self._initialized = True

    # ---- errors never break training -------------------------------------------------------
    def _internal_error(self, exc):
        STATE.active = False
        PIPELINE.set_synchronous(False)
        self.problems.internal_error(exc)

    def _report_disabled(self):
        self.problems.session_disabled(self.session)

    def _at_exit(self):
        STATE.active = False
        PIPELINE.set_synchronous(False)
        if getattr(self, "session", None) is not None:
            self.session.close()
            self._report_disabled()

    # ---- public API ----------------------------------------------------------------------
    @classmethod
    def _get(cls):
        if cls._instance is None or not cls._instance._initialized:
            raise Exception(NOT_CREATED)
        return cls._instance

    @classmethod
    def start(cls, model=None):
        self = cls._get()
        if self.kernel is not False:
            return self.kernel and self.kernel.start()
        self.start_called = True
        session = self.session
        if session.ended:
            self._report_end()
        if session.disabled or session.ended:
            return
        _check_model(model)
        level = self.config.level
        if self.first_start:
            if level in ("L0", "mix") and model is None:
                raise MsprobeException(f"The current level is {level}, the model cannot be None: "
                                       "call start(model) (at least the first time)")
            rank = _current_rank()
            ranks = self.config.rank
            if ranks and rank not in ranks:
                return
            if model is not None and level in ("L1", "mix") and self.config.task != "overflow_check":
                self.primitive_hooks.register(model)
            if level in ("L0", "mix"):
                self.cell_hooks.register(model, STATE.want_backward)
            if level in ("L1", "mix"):
                self.jit_capture.install()
            self.first_start = False
            self.rank = rank
        was_on = session.switch_on
        on = session.start(self.rank)
        report_repairs(session)
        STATE.active = on and not self.problems.reported
        PIPELINE.set_synchronous(STATE.active)  # see pipeline.py
        self._report_disabled()
        if on and not was_on:
            log.info(f"Dump switch is turned on at step {session.current_step}. "
                     f"Dump data will be saved in {session.rank_dir}.")
        if session.ended:
            self._report_end()

    def _report_end(self):
        if not self.end_reported:
            self.end_reported = True
            log.info("msprobe ends successfully (" + (
                "overflow_nums reached" if self.session.overflow_terminated
                else "the last configured step is done") + ")")

    @classmethod
    def stop(cls):
        self = cls._get()
        if self.kernel is not False:
            return self.kernel and self.kernel.stop()
        if self.session.ended:
            return
        if not self.start_called:
            log.error(f"msprobe: {STOP_WITHOUT_START}")
            raise Exception(STOP_WITHOUT_START)
        self.start_called = False
        STATE.active = False
        PIPELINE.set_synchronous(False)
        self.session.stop()
        self._report_disabled()

    @classmethod
    def forward_backward_dump_end(cls):
        log.warning("forward_backward_dump_end() is deprecated; it is the same as stop()")
        cls.stop()

    @classmethod
    def step(cls):
        self = cls._get()
        if self.kernel is not False:
            return self.kernel and self.kernel.step()
        STATE.active = False
        PIPELINE.set_synchronous(False)
        self.session.step()
        self._report_disabled()

    @classmethod
    def _reset_for_tests(cls):
        """Removes every hook and forgets the instance (not part of the original's API)."""
        self = cls._instance
        if self is None:
            return
        if getattr(self, "_initialized", False) and self.kernel is False:
            STATE.active = False
            PIPELINE.set_synchronous(False)
            self.session.step()
            self.session.close()
            self.api_patcher.uninstall()
            self.cell_hooks.remove()
            self.primitive_hooks.remove()
            self.jit_capture.uninstall()
            atexit.unregister(self._at_exit)
            STATE.session = None
        cls._instance = None
