"""run_ut's command line checked and turned into the settings of one run: input files, the
output folder, the result files (new, or those of a run to resume with -csv_path), the checker
config. Every problem is one line (RunUtError, or the config's own errors)."""
import os
import re
import time

RESULT_NAME_PATTERN = re.compile(r"^accuracy_checking_result_\d{14}\.csv$")


class RunUtError(Exception):
    """A user error: one line, exit status 1, no traceback."""


def _check_input_file(path, what, suffix):
    if not path:
        raise RunUtError(f"Please provide {what}.")
    if os.path.islink(path):
        raise RunUtError(f"{path}: {what} must not be a symbolic link")
    if not os.path.exists(path):
        raise RunUtError(f"{path}: {what} does not exist")
    if not os.path.isfile(path):
        raise RunUtError(f"{path}: {what} must be a file")
    if not path.endswith(suffix):
        raise RunUtError(f"{path}: {what} must be a {suffix} file")
    if not os.access(path, os.R_OK):
        raise RunUtError(f"{path}: {what} is not readable")
    return os.path.abspath(path)


def prepare_out_dir(path):
    path = path or "./"
    if os.path.islink(path.rstrip("/") or "/"):
        raise RunUtError(f"{path}: the output folder must not be a symbolic link")
    if os.path.exists(path) and not os.path.isdir(path):
        raise RunUtError(f"{path}: the output path exists and is not a folder")
    try:
        os.makedirs(path, mode=0o750, exist_ok=True)
    except OSError as e:
        raise RunUtError(f"{path}: cannot create the output folder: {e.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise RunUtError(f"{path}: the output folder is not writable")
    return os.path.abspath(path)


def resume_paths(result_csv_path):
    """(result, details, timestamp) of -csv_path, with the file name and both files checked."""
    name = os.path.basename(result_csv_path)
    if not RESULT_NAME_PATTERN.match(name):
        raise RunUtError(f"{result_csv_path}: -csv_path must name an accuracy_checking_result_"
                         "{14 digits}.csv file; when continuing run_ut do not rename the result csv")
    result = _check_input_file(result_csv_path, "the result csv", ".csv")
    details = os.path.join(os.path.dirname(result), name.replace("result", "details"))
    if os.path.islink(details) or not os.path.isfile(details):
        raise RunUtError(f"{details}: the details csv of the run to resume is missing")
    return result, details, name[len("accuracy_checking_result_"):-len(".csv")]


class RunUtSettings:
    """Everything a run (or a multi_run_ut worker) needs."""

    def __init__(self, api_info, result_csv, details_csv, resume, checker, device_id, save_error_data,
                 error_data_dir, filter_api, jit_compile=False):
        self.api_info = api_info
        self.result_csv = result_csv
        self.details_csv = details_csv
        self.resume = resume
        self.checker = checker
        self.device_id = device_id
        self.save_error_data = save_error_data
        self.error_data_dir = error_data_dir
        self.filter_api = filter_api
        self.jit_compile = jit_compile


def load_checker(config_path):
    from msprobe.pytorch.run_ut.config import CheckerConfig
    checker = CheckerConfig()
    if config_path:
        checker.load_json(_check_input_file(config_path, "the config file", ".json"))
    return checker


def prepare_settings(args):
    """Validates the command line; raises RunUtError / ConfigError / MsprobeFileError."""
    checker = load_checker(args.config_path)
    api_info = _check_input_file(args.api_info_file, "api_info_file for offline run ut" if not
                                 args.api_info_file else "the api_info file", ".json")
    out_dir = prepare_out_dir(args.out_path)
    if args.result_csv_path:
        result, details, ts = resume_paths(args.result_csv_path)
        resume = True
    else:
        ts = time.strftime("%Y%m%d%H%M%S")
        result = os.path.join(out_dir, f"accuracy_checking_result_{ts}.csv")
        details = os.path.join(out_dir, f"accuracy_checking_details_{ts}.csv")
        resume = False
    error_dir = None
    if args.save_error_data:
        base = checker.error_data_path
        error_dir = os.path.join(base, f"ut_error_data{ts}")
        try:
            os.makedirs(error_dir, mode=0o750, exist_ok=True)
        except OSError as e:
            raise RunUtError(f"{error_dir}: cannot create the error data folder: {e.strerror}") from None
    return RunUtSettings(api_info, result, details, resume, checker, args.device_id[0], args.save_error_data,
                         error_dir, args.filter_api, args.jit_compile)
