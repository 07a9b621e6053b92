"""The `msprobe` command line: `msprobe [-f pytorch|mindspore] <command> ...`."""
import argparse
import sys

from msprobe import __version__


def _build_parser():
    p = argparse.ArgumentParser(prog="msprobe", description="msprobe precision debugging toolkit")
    p.add_argument("-f", "--framework", choices=["pytorch", "mindspore"], default="pytorch")
    p.add_argument("--version", action="version", version=f"msprobe {__version__}")
    sub = p.add_subparsers(dest="command")
    s = sub.add_parser("summary", help="print a short summary of a dump directory")
    s.add_argument("dump_path")
    r = sub.add_parser("repair", help="make dump files cut by a kill whole again, in place")
    r.add_argument("dump_path", help="a dump_path, a step or rank folder, or one dump file")
    _add_api_precision_compare(sub)
    _add_run_ut(sub)
    _add_compare(sub)
    _add_op_generate(sub)
    from msprobe.core.report_cli import add_report_parser
    add_report_parser(sub)
    return p


def _one_line_errors(parser, command):
    from msprobe.core import log

    def error(message):  # user errors: one line, exit code 1
        log.error(f"{command}: {message}")
        sys.exit(1)
    parser.error = error


def _add_compare(sub):
    from msprobe.core.compare.compare_cli import _compare_parser
    from msprobe.core.compare.merge_result.merge_result_cli import _merge_result_parser
    c = sub.add_parser("compare", help="compare two dumps (one rank or every rank of two step folders)")
    _compare_parser(c)
    _one_line_errors(c, "compare")
    m = sub.add_parser("merge_result", help="merge chosen metrics of the per-rank compare results")
    _merge_result_parser(m)
    _one_line_errors(m, "merge_result")


def _add_op_generate(sub):
    from msprobe.core.op_generate import _op_generator_parser
    o = sub.add_parser("op_generate", help="one API call of a dump as a standalone reproduction script")
    _op_generator_parser(o)
    _one_line_errors(o, "op_generate")


def _add_run_ut(sub):
    # Their arguments are parsed by run_ut itself (`msprobe -f pytorch run_ut -h`), which keeps the
    # start-up of every other command free of the torch import.
    for name, text in (("run_ut", "API accuracy pre-check of a dump.json (PyTorch, or MindSpore against PyTorch)"),
                       ("multi_run_ut", "run_ut in several worker processes")):
        p = sub.add_parser(name, help=text, add_help=False, prefix_chars="+")
        p.add_argument("run_ut_args", nargs="*")


def _add_api_precision_compare(sub):
    from msprobe.core import log
    from msprobe.core.api_precision_compare import _api_precision_compare_parser
    a = sub.add_parser("api_precision_compare",
                       help="judge a device's run_ut details CSV against a reference device's")
    _api_precision_compare_parser(a)

    def one_line_error(message):  # user errors: one line, exit code 1
        log.error(f"api_precision_compare: {message}")
        sys.exit(1)
    a.error = one_line_error


def _pytorch_only(args, note=""):
    """False after one error line when a PyTorch command is run with -f mindspore."""
    if args.framework == "pytorch":
        return True
    from msprobe.core import log
    log.error(f"{args.command} is a PyTorch command{note}: use msprobe -f pytorch {args.command} ...")
    return False


def main(argv=None):
    args = _build_parser().parse_args(argv)
    if args.command is None:
        _build_parser().print_help()
        return 2
    if args.command == "summary":
        from msprobe.core.summary import print_summary
        return print_summary(args.dump_path)
    if args.command == "repair":
        from msprobe.core.repair import repair_command
        return repair_command(args.dump_path)
    if args.command == "api_precision_compare":
        if not _pytorch_only(args):
            return 1
        from msprobe.core.api_precision_compare import _api_precision_compare_command
        return _api_precision_compare_command(args)
    if args.command == "compare":
        from msprobe.core.compare.compare_cli import compare_cli
        return compare_cli(args, args.framework)
    if args.command == "merge_result":
        from msprobe.core.compare.merge_result.merge_result_cli import merge_result_cli
        return merge_result_cli(args)
    if args.command == "report":
        from msprobe.core.report_cli import report_command
        return report_command(args)
    if args.command == "op_generate":
        if not _pytorch_only(args, " (msprobe 1.2.1 has no MindSpore op_generate)"):
            return 1
        from msprobe.core.op_generate import _run_operator_generate_commond
        return _run_operator_generate_commond(args)
    if args.command in ("run_ut", "multi_run_ut") and args.framework == "mindspore":
        from msprobe.mindspore.run_ut.run_ut import run_command as ms_run_command  # no torch import
        return ms_run_command(args.command, args.run_ut_args)
    if args.command in ("run_ut", "multi_run_ut"):
        from msprobe.pytorch.run_ut.cli_args import run_command
        return run_command(args.framework, args.command, args.run_ut_args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
