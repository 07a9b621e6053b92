"""Command-line wiring of run_ut and multi_run_ut (kept free of torch imports so that
`msprobe --help` stays fast)."""
import sys

from msprobe.core import log


def _one_line_errors(parser, command):
    def error(message):  # user errors: one line, exit status 1 (no usage dump)
        log.error(f"{command}: {message}")
        sys.exit(1)
    parser.error = error


def add_run_ut_args(parser):
    from msprobe.pytorch.api_accuracy_checker.run_ut.run_ut import _run_ut_parser
    _run_ut_parser(parser)
    _one_line_errors(parser, "run_ut")


def add_multi_run_ut_args(parser):
    from msprobe.pytorch.api_accuracy_checker.run_ut.multi_run_ut import _multi_run_ut_parser
    _multi_run_ut_parser(parser)
    _one_line_errors(parser, "multi_run_ut")


def run_command(args):
    if getattr(args, "framework", "pytorch") != "pytorch":
        log.error(f"{args.command} is a PyTorch command: use msprobe -f pytorch {args.command} ...")
        return 1
    if args.command == "run_ut":
        from msprobe.pytorch.api_accuracy_checker.run_ut.run_ut import run_ut_command
        return run_ut_command(args)
    from msprobe.pytorch.api_accuracy_checker.run_ut.multi_run_ut import multi_run_ut_command
    return multi_run_ut_command(args)
