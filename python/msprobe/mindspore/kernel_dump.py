"""MindSpore level L2 (kernel dump) and static-graph routing, as msprobe 1.2.1 does it
(reference data-dump §6.1-§6.2): MindSpore dumps the kernels itself, driven by a dump
configuration file msprobe writes into dump_path on the first start().

MindSpore reads MINDSPORE_DUMP_CONFIG once, when it compiles its first graph (measured with
MindSpore 2.10: a variable set after the first graph is compiled is ignored, PyNative operations
before it do not matter). So start() must come before the network's first graph or jit call.

On a CPU MindSpore refuses saved_data "statistic" ("storing statistic dump is only supported on
GPU and Ascend"). There the statistics task lets MindSpore dump tensors into its usual folders and
the C++ core turns each iteration folder's .npy files into statistic.csv (MindSpore's layout),
removing the converted tensors, at step(), stop() and process exit.

Task overflow_check (static graph O2 only) writes kernel_graph_overflow_check.json as 1.2.1 does
(saved_data "full", op_debug_mode from check_mode): on Ascend MindSpore then dumps the kernels
that overflowed. A CPU has no overflow detection and refuses "full": there MindSpore dumps every
kernel's tensors (saved_data "tensor") and the C++ core keeps the kernels holding inf/NaN, at the
same points."""
import atexit
import os

import mindspore as ms

from msprobe import _core
from msprobe.core import log
from msprobe.core.errors import MsprobeException

KBYK_FILE = "kernel_kbyk_dump.json"
GRAPH_FILE = "kernel_graph_dump.json"
OVERFLOW_FILE = "kernel_graph_overflow_check.json"
# The configuration MindSpore is given on a CPU for the statistics task (saved_data "tensor").
CPU_STAGING_FILE = "kernel_dump_cpu_staging.json"
CPU_OVERFLOW_STAGING_FILE = "kernel_overflow_cpu_staging.json"
ADUMP_MESSAGE = "The current msprobe package does not compile adump, and kernel dump cannot be used."
LEVEL_NAMES = {"L0": "cell", "L1": "api", "mix": "api", "L2": "kernel"}


def execution_mode():
    """'pynative', 'graph_kbyk' (GRAPH_MODE, jit_level O0/O1) or 'graph_ge' (GRAPH_MODE, O2)."""
    if ms.get_context("mode") != ms.GRAPH_MODE:
        return "pynative"
    jit_level = (ms.context.get_jit_config() or {}).get("jit_level")
    if not jit_level:
        try:
            jit_level = ms.get_context("jit_level")
        except Exception:
            jit_level = None
    if not jit_level:
        # The original's default: O2 on Ascend 910A, O0 elsewhere.
        try:
            from mindspore._c_expression import MSContext
            jit_level = "O2" if MSContext.get_instance().get_ascend_soc_version() == "ascend910" else "O0"
        except Exception:
            jit_level = "O0"
    return "graph_ge" if jit_level == "O2" else "graph_kbyk"


def is_graph_dump(cfg):
    """1.2.1's rule: L2 with no list, several names, or a kernel name ('-' or '/') is dumped by
    MindSpore; one plain API name is the adump (Ascend) path."""
    if cfg.level != "L2":
        return False
    if len(cfg.list) != 1:
        return True
    return "-" in cfg.list[0] or "/" in cfg.list[0]


def check_routing(cfg, mode):
    """Raises the original's exceptions for what cannot be dumped in `mode`; returns 'kernel'
    when MindSpore's own dump is used, 'adump' for the Ascend-only single-API path, or None for
    the PyNative Python hooks."""
    if mode == "pynative" and cfg.level != "L2":
        return None
    if cfg.task == "overflow_check":
        # 1.2.1's OverflowCheckToolFactory: kernels are checked in static graph O2 only.
        if mode == "pynative" and not is_graph_dump(cfg):
            return "adump"
        if mode == "graph_ge" and cfg.level == "L2":
            return "kernel"
        raise MsprobeException(f"Overflow check is not supported in {mode} mode when level is "
                               f"{LEVEL_NAMES[cfg.level]}.")
    if len(cfg.data_mode) != 1 or cfg.data_mode[0] not in ("all", "input", "output"):
        raise MsprobeException("data_mode must be one of all, input, output.")
    if cfg.level != "L2":
        raise MsprobeException(f"Data dump is not supported in {mode} mode when dump level is "
                               f"{LEVEL_NAMES[cfg.level]}.")
    if mode == "pynative" and not is_graph_dump(cfg):
        return "adump"
    return "kernel"


class KernelDump:
    """Writes MindSpore's dump configuration on the first start() and, on a CPU statistics task,
    converts the tensor dump into statistic.csv."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.started = False
        self.staging = False
        self.overflow = cfg.task == "overflow_check"
        self.categories = _core.kernel_statistic_categories(cfg)
        self.reported = set()
        self.converted = 0

    def start(self):
        if self.started:
            return
        self.started = True
        mode = execution_mode()
        kind = "graph" if mode == "graph_ge" else "kbyk"
        if self.overflow:
            kind = "graph_overflow"
            if self.cfg.step:
                log.warning("Step would change to all in this task.")
        if kind != "kbyk" and os.getenv("GRAPH_OP_RUN") == "1":
            raise MsprobeException("Must run in graph mode, not kbk mode")
        dump_path = self.cfg.dump_path
        os.makedirs(dump_path, mode=0o750, exist_ok=True)
        name = {"graph": GRAPH_FILE, "kbyk": KBYK_FILE, "graph_overflow": OVERFLOW_FILE}[kind]
        path = os.path.join(dump_path, name)
        _core.write_text_file_atomic(path, _core.kernel_dump_json(self.cfg, kind))
        log.info(f"{path} has been created.")
        config_for_mindspore = path
        on_cpu = ms.get_context("device_target") == "CPU"
        self.staging = self.cfg.task in ("statistics", "overflow_check") and on_cpu
        if self.staging:  # MindSpore dumps tensors into a staging config; msprobe reduces them
            config_for_mindspore = os.path.join(
                dump_path, CPU_OVERFLOW_STAGING_FILE if self.overflow else CPU_STAGING_FILE)
            _core.write_text_file_atomic(config_for_mindspore,
                                         _core.kernel_dump_json(self.cfg, kind, "tensor"))
            if self.overflow:
                log.info("A CPU has no kernel overflow detection: MindSpore dumps every kernel "
                         f"({config_for_mindspore}) and msprobe keeps the kernels holding inf/NaN at "
                         "step(), stop() and exit")
            else:
                log.info("MindSpore cannot store statistics on a CPU: it dumps tensors "
                         f"({config_for_mindspore}) and msprobe turns them into statistic.csv at "
                         "step(), stop() and exit")
        previous = os.environ.get("MINDSPORE_DUMP_CONFIG")
        if previous and previous != config_for_mindspore:
            log.warning(f"MINDSPORE_DUMP_CONFIG was {previous}; msprobe replaces it")
        os.environ["MINDSPORE_DUMP_CONFIG"] = config_for_mindspore
        if kind == "graph" and not self.cfg.list:  # overflow_check unsets it, as 1.2.1
            os.environ["MS_ACL_DUMP_CFG_PATH"] = config_for_mindspore
        else:
            os.environ.pop("MS_ACL_DUMP_CFG_PATH", None)
        atexit.register(self.at_exit)

    def convert(self, final=False):
        """One conversion pass (CPU statistics only). Never raises: training goes on."""
        if not self.staging:
            return
        try:
            if self.overflow:
                converted, problems = _core.filter_kernel_overflow_dump(self.cfg.dump_path, final)
            else:
                converted, problems = _core.convert_kernel_tensor_dump(self.cfg.dump_path,
                                                                       self.categories, final)
        except Exception as exc:  # an internal error must not stop training
            log.error(f"kernel dump statistics: {type(exc).__name__}: {exc}")
            return
        self.converted += converted
        for line in problems:
            if line not in self.reported:
                self.reported.add(line)
                log.warning(f"kernel dump statistics: {line}")

    def step(self):
        self.convert()

    def stop(self):
        self.convert()

    def at_exit(self):
        self.convert(final=True)
        if not self._mindspore_wrote_anything():
            log.warning(
                f"MindSpore wrote no kernel dump under {self.cfg.dump_path}. MindSpore reads "
                "MINDSPORE_DUMP_CONFIG when it compiles its first graph: call "
                "PrecisionDebugger(...).start() before the network's first graph (static graph) "
                "or jit function (PyNative) runs, and before mindspore.communication.init; in "
                "PyNative only jit functions are dumped. Also check 'rank', 'step' and 'list'.")

    def _mindspore_wrote_anything(self):
        try:
            return any(name.startswith("rank_") for name in os.listdir(self.cfg.dump_path))
        except OSError:
            return False
