"""What both PrecisionDebuggers are: one instance per process, a C++ dump session wired to the
framework's hook state, start()/stop()/step() switching collection, internal errors and exit
handled so that training never breaks. A framework subclass sets FRAMEWORK and STATE and adds its
hooks, its arguments and its messages."""
import atexit

import numpy as np

from msprobe import _core
from msprobe.core import log
from msprobe.core.debugger_support import (
    ProblemReport,
    library_prefixes,
    overflow_reporter,
    report_repairs,
    writer_memory_mb,
)
from msprobe.core.errors import MsprobeException

DUMP_TASKS = ("statistics", "tensor", "overflow_check")
GRAD_PROBE = "grad_probe"   # its own tool: monitor(...), no dump session (1.2.1 too)
FREE_BENCHMARK = "free_benchmark"


class DebuggerBase:
    FRAMEWORK = None   # "pytorch" or "mindspore"
    STATE = None       # the framework's HookState
    TASKS = DUMP_TASKS  # the tasks the framework's PrecisionDebugger runs
    _instance = None
    session = None
    end_reported = False
    gm = None          # grad_probe's GradientMonitor
    fuzz = None        # free_benchmark's runner (msprobe/core/free_benchmark.py)

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance._initialized = False
        return cls._instance

    # ---- construction ------------------------------------------------------------------------
    @classmethod
    def _check_task(cls, cfg, debugger_name):
        if cfg.task not in cls.TASKS and cfg.task != GRAD_PROBE:
            raise MsprobeException(
                f"task '{cfg.task}' is not supported by this msprobe's {debugger_name}; "
                f"supported tasks: {', '.join(cls.TASKS + (GRAD_PROBE,))}")

    def _open_grad_probe(self, monitor_class):
        """Task grad_probe: no dump session, start/stop/step do nothing (as in 1.2.1); the
        gradients are recorded by monitor(...)."""
        self.gm = monitor_class(self.config)
        self._initialized = True

    def _open_session(self, cfg, framework_module, size_type, encode, to_host, msprobe_dir, device_stats):
        """The C++ session for cfg, reading the framework's values with encode/to_host and the
        tensors it reads late through device_stats.attach()'s DeviceRecorder; the hook state
        records into it."""
        session = _core.DumpSession(cfg, self.FRAMEWORK, writer_memory_mb())
        session.set_types(size_type, np.generic, encode, to_host, msprobe_dir)
        if cfg.task == "overflow_check":
            session.set_overflow_reporting(overflow_reporter(), library_prefixes(framework_module))
        self.session = session
        self.device_recorder = device_stats.attach(session)
        self.problems = ProblemReport()
        self.STATE.session = session
        self.STATE.on_error = self._internal_error
        self.STATE.failed = False
        return session

    def _finish_init(self):
        atexit.register(self._at_exit)
        self._initialized = True

    # ---- errors never break training ---------------------------------------------------------
    def _set_active(self, on):
        self.STATE.active = on

    def _internal_error(self, exc, call=None):
        """A fault of the probe: the session stops collecting and notes it in dump.json; the
        wrappers go on only counting what they would have recorded (HookState.failed)."""
        first = not self.STATE.failed
        self.STATE.failed = True
        if first:
            self._set_active(self.STATE.active)  # the framework's side of "failed" (MindSpore)
        try:
            self.session.disable_after_error(f"{type(exc).__name__}: {exc}", call or "")
        except Exception:  # noqa: BLE001  the note is best effort; the error line below is not
            pass
        self.problems.internal_error(exc)

    def _report_disabled(self):
        if self.session.disabled:
            self.STATE.failed = True
        self.problems.session_disabled(self.session)

    def _at_exit(self):
        self._set_active(False)
        if self.session is not None:
            self.session.close()
            self._report_disabled()
            self._report_lost_calls()
        if self.fuzz is not None:
            self._fuzz_finish(True)

    def _fuzz_finish(self, final):
        try:
            self.fuzz.finish(final)
        except Exception as e:  # noqa: BLE001  the summary is best effort; the CSV is written already
            log.warning(f"free_benchmark: the summary was not written ({type(e).__name__}: {e})")

    def _report_lost_calls(self):
        """One line at the end of the run: how many calls the disabled probe did not record."""
        session = self.session
        if not session.disabled:
            return
        if session.failed_step < 0:  # an I/O failure: its reason was reported when it happened
            log.error(f"{session.unrecorded_calls} calls were not recorded after the dump was "
                      f"disabled ({session.disabled_reason})")
            return
        where = f" at step {session.failed_step}"
        if session.failed_call:
            where += f", call {session.failed_call}"
        log.error(f"{session.unrecorded_calls} calls were not recorded: the probe disabled itself"
                  f"{where} ({session.disabled_reason}); the dump stops there (dump.json: "
                  f"\"probe_disabled\")")

    # ---- public API ----------------------------------------------------------------------------
    @classmethod
    def _not_created(cls, what):
        return MsprobeException(f"PrecisionDebugger must be created before calling {what}()")

    @classmethod
    def _get(cls, what):
        if cls._instance is None or not cls._instance._initialized:
            raise cls._not_created(what)
        return cls._instance

    def _bypassed(self, what):
        """True when start/stop/step are not the hooks' to handle (they were handled here)."""
        return False

    @classmethod
    def monitor(cls, target):
        """Task grad_probe: records the gradients of `target` (a torch.nn.Module; MindSpore: the
        optimizer) at every optimizer step. Other tasks: nothing, as in 1.2.1."""
        self = cls._get("monitor")
        if self.gm is not None:
            self.gm.monitor(target)

    @classmethod
    def start(cls, model=None):
        self = cls._get("start")
        if self.gm is not None:
            return
        if not self._bypassed("start"):
            self._start_impl(model)

    @classmethod
    def stop(cls):
        self = cls._get("stop")
        if self.gm is not None:
            self.gm.stop()
            return
        if not self._bypassed("stop"):
            self._stop_impl()

    @classmethod
    def step(cls):
        self = cls._get("step")
        if self.gm is not None:
            return
        if not self._bypassed("step"):
            self._step_impl()

    @classmethod
    def forward_backward_dump_end(cls):
        log.warning("forward_backward_dump_end() is deprecated; it is the same as stop()")
        cls.stop()

    def _start_impl(self, model):
        raise NotImplementedError

    def _switch_on(self, rank):
        """Starts (or continues) collecting in the session for rank; says so once."""
        session = self.session
        was_on = session.switch_on
        on = session.start(rank)
        report_repairs(session)
        self._report_disabled()
        # A disabled probe stays active only to count what it does not record (HookState.failed).
        self._set_active(on or self.STATE.failed)
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

    def _stop_impl(self):
        self._set_active(False)
        self.session.stop()
        self._report_disabled()

    def _step_impl(self):
        self._set_active(False)
        self.session.step()
        self._report_disabled()
        if self.fuzz is not None:
            self._fuzz_finish(False)

    # ---- tests ---------------------------------------------------------------------------------
    def _remove_hooks(self):
        """Ends the step and removes every hook the framework installed."""
        raise NotImplementedError

    @classmethod
    def _reset_for_tests(cls):
        """Removes every hook and forgets the instance (not part of the original's API)."""
        self = cls._instance
        if self is None:
            return
        if self.gm is not None:
            self.gm.remove()
        if getattr(self, "_initialized", False) and self.session is not None:
            self._set_active(False)
            self._remove_hooks()
            atexit.unregister(self._at_exit)
            self.STATE.session = None
        cls._instance = None
