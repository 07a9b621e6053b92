"""`msprobe -f pytorch|mindspore merge_result -i DIR -o DIR -config cfg.yaml` (1.2.1's flags)."""
from msprobe.core import log


def _merge_result_parser(parser):
    parser.add_argument("-i", "--input_dir", dest="input_dir", type=str, required=True,
                        help="<Required> The compare result path, a dir.")
    parser.add_argument("-o", "--output_dir", dest="output_dir", type=str, required=True,
                        help="<Required> The result merge output path, a dir.")
    parser.add_argument("-config", "--config-path", dest="config_path", type=str, required=True,
                        help="<Required> Yaml path containing distribute APIs and compare indexes for "
                             "merging data from compare results.")


def merge_result_cli(args):
    """Returns the exit code: 0, or 1 after one error line."""
    from msprobe.core.compare.merge_result.merge_result import merge_result
    try:
        merge_result(args.input_dir, args.output_dir, args.config_path)
    except (ValueError, OSError) as e:
        log.error(str(e))
        return 1
    return 0
