"""Command-line wiring of `msprobe -f pytorch run_ut|multi_run_ut ARGS...`: `msprobe` hands the
arguments over unparsed, so that its other commands start without importing torch."""
import argparse
import sys

from msprobe.core import log


def _one_line_errors(parser, command):
    def error(message):  # user errors: one line, exit status 1 (no usage dump)
        log.error(f"{command}: {message}")
        sys.exit(1)
    parser.error = error


def build_parser(command):
    parser = argparse.ArgumentParser(prog=f"msprobe -f pytorch {command}",
                                     description="PyTorch API accuracy pre-check" if command == "run_ut"
                                     else "run_ut in parallel worker processes")
    if command == "run_ut":
        from msprobe.pytorch.run_ut.run_ut import _run_ut_parser
        _run_ut_parser(parser)
    else:
        from msprobe.pytorch.run_ut.multi_run_ut import _multi_run_ut_parser
        _multi_run_ut_parser(parser)
    _one_line_errors(parser, command)
    return parser


def run_command(framework, command, argv):
    if framework != "pytorch":
        log.error(f"{command} is a PyTorch command: use msprobe -f pytorch {command} ...")
        return 1
    args = build_parser(command).parse_args(argv)
    if command == "run_ut":
        from msprobe.pytorch.run_ut.run_ut import run_ut_command
        return run_ut_command(args)
    from msprobe.pytorch.run_ut.multi_run_ut import multi_run_ut_command
    return multi_run_ut_command(args)
