"""run_ut's command line checked and turned into the settings of one run: input files, the
output folder, the result files (new, or those of a run to resume with -csv_path), the checker
config. Every problem is one line (RunUtError, or the config's own errors)."""
import os

from msprobe import _core
from msprobe.core.run_ut_files import (  # noqa: F401  (re-exported)
    RESULT_NAME_PATTERN,
    RunUtError,
    _check_input_file,
    prepare_out_dir,
    resume_paths,
)


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
        checker.load_json(_check_input_file(config_path, "-config", ".json"))
    return checker


def prepare_settings(args):
    """Validates the command line; raises RunUtError / ConfigError / MsprobeFileError."""
    checker = load_checker(args.config_path)
    api_info = _check_input_file(args.api_info_file, "-api_info", ".json")
    out_dir = prepare_out_dir(args.out_path)
    if args.result_csv_path:
        result, details, ts = resume_paths(args.result_csv_path)
        resume = True
    else:
        ts = _core.timestamp_now()
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
