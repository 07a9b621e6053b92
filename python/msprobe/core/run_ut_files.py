"""The files of run_ut (PyTorch's and MindSpore's): the input checks, the output folder and the
result files of a run to resume (-csv_path). Every problem is one line."""
import os
import re

from msprobe import _core
from msprobe.core import log

RESULT_NAME_PATTERN = re.compile(r"^accuracy_checking_result_\d{14}\.csv$")


class RunUtError(Exception):
    """A user error: one line, exit status 1, no traceback."""


def _check_input_file(path, what, suffix):
    """The absolute path of a readable regular *suffix file (the core's check: one line)."""
    _core.check_input_file(path or "", what, suffix)
    return os.path.abspath(path)


def prepare_out_dir(path):
    path = path or "./"
    _core.prepare_output_dir(path)
    return os.path.abspath(path)


def resume_paths(result_csv_path):
    """(result, details, timestamp) of -csv_path; both files are checked when the run resumes
    (_core.runut.prepare_resume)."""
    name = os.path.basename(result_csv_path)
    if not RESULT_NAME_PATTERN.match(name):
        raise RunUtError(f"{result_csv_path}: -csv_path must name an accuracy_checking_result_"
                         "{14 digits}.csv file; when continuing run_ut do not rename the result csv")
    result = os.path.abspath(result_csv_path)
    details = os.path.join(os.path.dirname(result), name.replace("result", "details"))
    return result, details, name[len("accuracy_checking_result_"):-len(".csv")]


def run_command_body(body):
    """Runs `body(started)` of a run_ut command, where `started(settings)` records the settings
    once the result files are known. Returns (exit status, body's value): user errors are one line
    and status 1; Ctrl-C says how to resume and is status 130."""
    holder = []
    try:
        return 0, body(holder.append)
    except (RunUtError, _core.ConfigError, _core.MsprobeFileError, ValueError, OSError) as e:
        log.error(str(e))
        return 1, None
    except KeyboardInterrupt:
        if holder:
            log.warning(f"Interrupted. Resume with: -csv_path {holder[-1].result_csv}")
        return 130, None
