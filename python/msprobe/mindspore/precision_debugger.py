"""PrecisionDebugger for MindSpore (PyNative): the public API of msprobe 1.2.1
(reference data-dump §2.2, §5.4; seed doc 06.data_dump_MindSpore.md §6). The shared part
(singleton, session, start/stop/step, exit) is msprobe/core/debugger_base.py."""
import os

import mindspore as ms

from msprobe import _core
from msprobe.core import api_patcher, log
from msprobe.core.debugger_base import DUMP_TASKS, FREE_BENCHMARK, DebuggerBase
from msprobe.core.debugger_support import check_argument_types, library_prefixes
from msprobe.core.errors import MsprobeException
from msprobe.mindspore import device_stats, kernel_dump
from msprobe.mindspore.api_wrapper import ApiPatcher
from msprobe.mindspore.cell_hooks import CellHooks
from msprobe.mindspore.hook_state import STATE
from msprobe.mindspore.jit_capture import JitCapture
from msprobe.mindspore.pipeline import PIPELINE
from msprobe.mindspore.primitive_hooks import PrimitiveHooks
from msprobe.mindspore.value_encoding import encode_ms_value, to_host

DEFAULT_CONFIG = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                              "config.json")
MSPROBE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
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


class PrecisionDebugger(DebuggerBase):
    FRAMEWORK = "mindspore"
    STATE = STATE
    TASKS = DUMP_TASKS + (FREE_BENCHMARK,)
    kernel = False  # L2/static graph: the KernelDump, or None (nothing to do); False: hooks

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
        self._check_task(cfg, "MindSpore PrecisionDebugger")
        if cfg.task == "grad_probe":
            from msprobe.mindspore.grad_probe.grad_monitor import GradientMonitor
            self._open_grad_probe(GradientMonitor)
            return
        if cfg.task == FREE_BENCHMARK:
            self._init_free_benchmark(cfg)
            return
        # L2 and static graph: MindSpore dumps the kernels itself (kernel_dump.py).
        route = kernel_dump.check_routing(cfg, kernel_dump.execution_mode())
        if route is not None:
            self.kernel = kernel_dump.KernelDump(cfg) if route == "kernel" else None
            if route == "adump":
                log.warning(f"{kernel_dump.ADUMP_MESSAGE} (level L2 with one API name in 'list' "
                            "needs msprobe's adump build on Ascend; nothing is dumped)")
            self._initialized = True
            return
        self._open_session(cfg, ms, None, encode_ms_value, to_host, MSPROBE_DIR, device_stats)
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
        if cfg.level in ("L1", "mix"):
            self.api_patcher.install()
        self._finish_init()

    def _init_free_benchmark(self, cfg):
        """Task free_benchmark (PyNative, API level as in 1.2.1): the APIs of
        free_benchmark/free_benchmark_ops.yaml that the config's list selects, wrapped by the
        FuzzRunner."""
        from msprobe.mindspore.free_benchmark import FuzzRunner
        from msprobe.mindspore.free_benchmark.selection import OPS_PATH, selector
        mode = kernel_dump.execution_mode()
        if mode != "pynative" or cfg.level in ("L0", "L2"):
            raise MsprobeException(f"Task free_benchmark is not supported in this mode: {mode}.")
        if cfg.free_benchmark.ignored_note:
            log.warning(cfg.free_benchmark.ignored_note)
        self._open_session(cfg, ms, None, encode_ms_value, to_host, MSPROBE_DIR, device_stats)
        self.fuzz = FuzzRunner(cfg, STATE, library_prefixes(ms) + [MSPROBE_DIR])
        selected = selector(cfg.free_benchmark.list)

        def wrap(section, dotted, original, api_name):
            return self.fuzz.make_wrapper(original, api_name) if selected(api_name) else None
        self.api_patcher = api_patcher.ApiPatcher("mindspore", wrap, OPS_PATH)
        self.api_patcher.install()
        self.cell_hooks = CellHooks()
        self.primitive_hooks = PrimitiveHooks()
        self.jit_capture = JitCapture(self.api_patcher, record=False)
        self.first_start = True
        self.start_called = False
        self._finish_init()

    def _set_active(self, on):
        STATE.active = on
        PIPELINE.set_synchronous(on and not STATE.failed)  # see pipeline.py

    @classmethod
    def _not_created(cls, what):
        return Exception(NOT_CREATED)

    def _bypassed(self, what):
        """L2 and static graph: the kernel dump (if any) does start/stop/step."""
        if self.kernel is False:
            return False
        if self.kernel:
            getattr(self.kernel, what)()
        return True

    def _start_impl(self, model):
        self.start_called = True
        session = self.session
        if session.ended:
            self._report_end()
        if session.ended:
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
            hooks = self.fuzz is None  # free_benchmark: APIs only, no Primitives or Jit (as 1.2.1)
            if hooks and model is not None and level in ("L1", "mix") and self.config.task != "overflow_check":
                self.primitive_hooks.register(model)
            if hooks and level in ("L0", "mix"):
                self.cell_hooks.register(model, STATE.want_backward)
            if hooks and level in ("L1", "mix"):
                self.jit_capture.install()
            self.first_start = False
            self.rank = rank
            if self.fuzz is not None:
                self.fuzz.rank = rank  # -1: 1.2.1's empty rank column
        self._switch_on(self.rank)

    def _stop_impl(self):
        if self.session.ended:
            return
        if not self.start_called:
            log.error(f"msprobe: {STOP_WITHOUT_START}")
            raise Exception(STOP_WITHOUT_START)
        self.start_called = False
        super()._stop_impl()

    def _remove_hooks(self):
        self.session.step()
        self.session.close()
        self.api_patcher.uninstall()
        self.cell_hooks.remove()
        self.primitive_hooks.remove()
        self.jit_capture.uninstall()
