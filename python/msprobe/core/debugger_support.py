"""What the PyTorch and MindSpore PrecisionDebuggers share: the writer's memory budget, the type
checks of the constructor's arguments (their values are checked by the C++ config loader) and of
seed_all's, and reporting the first problem of a dump once while training goes on."""
import os
import sysconfig

from msprobe.core import log
from msprobe.core.errors import MsprobeException


def writer_memory_mb():
    value = os.environ.get("MSPROBE_WRITER_MEMORY_MB", "512")
    try:
        mb = int(value)
        if mb <= 0:
            raise ValueError
        return mb
    except ValueError:
        raise MsprobeException(
            f"MSPROBE_WRITER_MEMORY_MB must be a positive integer (MiB), got {value!r}") from None


def check_argument_types(config_path, task, dump_path, level, step):
    for arg, value in (("config_path", config_path), ("task", task),
                       ("dump_path", dump_path), ("level", level)):
        if value is not None and not isinstance(value, str):
            raise MsprobeException(f"PrecisionDebugger: '{arg}' must be a str, "
                                   f"got {type(value).__name__}")
    if step is not None and not isinstance(step, list):
        raise MsprobeException(f"PrecisionDebugger: 'step' must be a list, "
                               f"got {type(step).__name__}")


def check_seed_arguments(seed, mode, rm_dropout):
    """The types and range of seed_all's arguments (both frameworks)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= 2**32 - 1:
        raise MsprobeException(f"seed_all: seed must be an int in [0, {2**32 - 1}], got {seed!r}")
    if not isinstance(mode, bool):
        raise MsprobeException(f"seed_all: mode must be a bool, got {mode!r}")
    if not isinstance(rm_dropout, bool):
        raise MsprobeException(f"seed_all: rm_dropout must be a bool, got {rm_dropout!r}")


class ProblemReport:
    """One error line for the first problem (an internal error, or the session disabling itself
    after an I/O failure); the caller has already stopped collecting."""

    def __init__(self):
        self.reported = False

    def internal_error(self, exc):
        if not self.reported:
            self.reported = True
            log.error(f"internal error, dumping is disabled and training continues: "
                      f"{type(exc).__name__}: {exc}")

    def session_disabled(self, session):
        if session.disabled and not self.reported:
            self.reported = True
            log.error(f"{session.disabled_reason}; dumping is disabled, training continues")


def report_repairs(session):
    """Says what the session repaired in dump_path before writing (files of an earlier run cut by
    a kill), one line per file."""
    for message in session.take_repair_messages():
        log.warning(f"repaired an earlier dump: {message}")


def overflow_reporter():
    """overflow_check's messages from the C++ session: report(level, message)."""
    def report(level, message):
        (log.info if level == "INFO" else log.warning)(message)
    return report


def library_prefixes(*frameworks):
    """Folders whose stack frames are not the user's code: the frameworks' packages and Python's
    standard library (the first-overflow message names the innermost frame outside them)."""
    prefixes = [os.path.dirname(os.path.realpath(fw.__file__)) + os.sep for fw in frameworks]
    prefixes += [os.path.dirname(os.path.abspath(fw.__file__)) + os.sep for fw in frameworks]
    for key in ("stdlib", "platstdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            prefixes.append(os.path.join(path, ""))
    return sorted(set(prefixes))
