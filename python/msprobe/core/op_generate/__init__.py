"""op_generate (msprobe 1.2.1's 单算子API自动生成脚本): one API call of a dump as a standalone
torch script that replays it on the device and on the CPU and prints a verdict (docs/op_generate.md).

    msprobe -f pytorch op_generate -i config_op.json -o DIR

The whole command is C++ (msprobe._core.opgen: config_op.json checks, the extraction from
dump.json with the dump reader, the script from op_script.py.template); this module finds the
template, parses the command line and reports. It imports no torch (it lives in core/ so the
`msprobe` command line starts without torch, like api_precision_compare).
"""
import argparse
import os
import sys

from msprobe.core import log

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "op_script.py.template")


def op_generate(config_input, api_output_path):
    """Writes api_output_path/<entry>.py from config_op.json; returns msprobe._core.opgen's
    OpGenerateResult. User errors raise ConfigError / MsprobeFileError (ValueError) with one line."""
    from msprobe._core import opgen
    result = opgen.run_op_generate(os.fspath(config_input), os.fspath(api_output_path), TEMPLATE)
    if result.extracted:
        log.info(f"The api '{result.api_name}' has been successfully extracted and saved in: "
                 f"{result.extract_api_path}")
    log.info(f"Generate operator script successfully and the name is {result.script_path}.")
    return result


def _op_generator_parser(parser):
    """1.2.1's flags."""
    parser.add_argument("-i", "--config_input", dest="config_input", type=str, required=True,
                        help="<Required> Path of config_op.json")
    parser.add_argument("-o", "--api_output_path", dest="api_output_path", type=str, required=True,
                        help="<Required> Folder the script is written to (must exist)")


def _run_operator_generate_commond(cmd_args):  # 1.2.1's name (sic)
    """The CLI action: 0, or 1 after one error line."""
    try:
        op_generate(cmd_args.config_input, cmd_args.api_output_path)
    except (ValueError, OSError) as e:  # ConfigError, MsprobeFileError
        log.error(f"op_generate: {e}")
        return 1
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="op_generator")
    _op_generator_parser(parser)
    return _run_operator_generate_commond(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
