"""api_precision_compare: judge one device's run_ut results against a reference device's.

    msprobe -f pytorch api_precision_compare -npu NPU_details.csv -gpu GPU_details.csv [-o out]
    python -m msprobe.pytorch.api_accuracy_checker.compare.api_precision_compare -npu ... -gpu ...

This module needs no torch (the CLI imports it directly); the 1.2.1 import path
msprobe.pytorch.api_accuracy_checker.compare.api_precision_compare re-exports it.

Both inputs are `accuracy_checking_details_{timestamp}.csv` files written by run_ut (ours or
msprobe 1.2.1's). Writes `api_precision_compare_result_{timestamp}.csv` and
`api_precision_compare_details_{timestamp}.csv` into the output folder. Everything but argument
parsing happens in C++ (msprobe._core.api_precision_compare).
"""
import argparse
import os
import sys
from collections import namedtuple

from msprobe import _core
from msprobe.core import log
from msprobe.core.yaml_file import load_yaml_file

# Same fields as 1.2.1's CompareConfig, so api_precision_compare(config) is a drop-in.
CompareConfig = namedtuple("CompareConfig",
                           ["npu_csv_path", "gpu_csv_path", "result_csv_path", "details_csv_path"])

RESULT_FILE_PREFIX = "api_precision_compare_result_"
DETAILS_FILE_PREFIX = "api_precision_compare_details_"
# run_ut's config.yaml: its `precision` (decimals of the numbers written, 0..20) applies here too,
# as in 1.2.1. Read by path so that this command does not import torch.
CONFIG_YAML = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pytorch",
                           "run_ut", "config.yaml")


def _precision(path=CONFIG_YAML):
    if not os.path.isfile(path):
        return 14
    data = load_yaml_file(path) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must map setting names to values")
    value = data.get("precision", 14)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
        raise ValueError(f'{path}: "precision" must be an integer in 0..20, got {value!r}')
    return value


def _api_precision_compare_parser(parser):
    parser.add_argument("-npu", "--npu_csv_path", dest="npu_csv_path", default="", type=str,
                        required=True,
                        help="<Required> accuracy_checking_details.csv of run_ut on the device "
                             "under test (NPU).")
    parser.add_argument("-gpu", "--gpu_csv_path", dest="gpu_csv_path", default="", type=str,
                        required=True,
                        help="<Required> accuracy_checking_details.csv of run_ut on the reference "
                             "device (GPU).")
    parser.add_argument("-o", "--out_path", dest="out_path", default="", type=str, required=False,
                        help="<optional> Output folder (created if missing); default: ./")


def api_precision_compare(config):
    """Runs the comparison for a CompareConfig; returns the C++ report (a PrecisionCompareReport). Raises
    msprobe._core.MsprobeFileError / ConfigError for unreadable or malformed input."""
    report = _core.api_precision_compare(config.npu_csv_path, config.gpu_csv_path,
                                         config.result_csv_path, config.details_csv_path,
                                         _precision())
    for line in report.warnings:
        log.warning(line)
    return report


def _api_precision_compare_command(args):
    """The CLI action. Returns the exit code: 0, or 1 after one error line."""
    try:
        _core.check_input_csv_path(args.npu_csv_path, "-npu")
        _core.check_input_csv_path(args.gpu_csv_path, "-gpu")
        out_path = args.out_path if args.out_path else "./"
        _core.prepare_output_dir(out_path)
        stamp = _core.timestamp_now()
        config = CompareConfig(
            args.npu_csv_path, args.gpu_csv_path,
            os.path.join(out_path, f"{RESULT_FILE_PREFIX}{stamp}.csv"),
            os.path.join(out_path, f"{DETAILS_FILE_PREFIX}{stamp}.csv"))
        report = api_precision_compare(config)
    except (ValueError, OSError) as e:  # ConfigError, MsprobeFileError
        log.error(str(e))
        return 1
    log.info(f"Compare task result is saved in {config.result_csv_path}")
    log.info(f"Compare task details are saved in {config.details_csv_path}")
    from msprobe.core.report_cli import write_check_report
    write_check_report(config.details_csv_path)
    if report.error:
        log.error(report.error)
        return 1
    log.info("Compare task completed.")
    return 0


class _OneLineParser(argparse.ArgumentParser):
    """Argument errors as one line and exit code 1 (no usage dump)."""

    def error(self, message):
        log.error(f"{self.prog}: {message}")
        sys.exit(1)


def _api_precision_compare(argv=None):
    parser = _OneLineParser(prog="api_precision_compare")
    _api_precision_compare_parser(parser)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    return _api_precision_compare_command(args)
