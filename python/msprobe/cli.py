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
    return p


def main(argv=None):
    args = _build_parser().parse_args(argv)
    if args.command is None:
        _build_parser().print_help()
        return 2
    if args.command == "summary":
        from msprobe.core.summary import print_summary
        return print_summary(args.dump_path)
    return 2


if __name__ == "__main__":
    sys.exit(main())
