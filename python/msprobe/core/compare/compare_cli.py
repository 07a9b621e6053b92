"""`msprobe -f pytorch|mindspore compare -i compare.json -o OUT ...` with 1.2.1's flags, plus
`--dask ADDRESS` to fan rank pairs out over a Dask cluster. compare.json is read and checked in
C++ (msprobe._core.load_compare_json); no torch or mindspore import is needed."""
from msprobe import _core
from msprobe.core import log
from msprobe.core.compare import runner
from msprobe.core.errors import MsprobeException


def _compare_parser(parser):
    parser.add_argument("-i", "--input_path", dest="input_path", type=str, required=True,
                        help="<Required> The compare input path, a dict json.")
    parser.add_argument("-o", "--output_path", dest="output_path", type=str, required=False,
                        default="./output", nargs="?", const="./output",
                        help="<optional> The compare task result out path. Default path: ./output")
    parser.add_argument("-s", "--stack_mode", dest="stack_mode", action="store_true",
                        help="<optional> Whether to save stack info.")
    parser.add_argument("-c", "--compare_only", dest="compare_only", action="store_true",
                        help="<optional> Whether to give advisor.")
    parser.add_argument("-f", "--fuzzy_match", dest="fuzzy_match", action="store_true",
                        help="<optional> Whether to perform a fuzzy match on the api name.")
    parser.add_argument("-cm", "--cell_mapping", dest="cell_mapping", type=str, nargs="?", const=True,
                        help="<optional> The cell mapping file path.")
    parser.add_argument("-am", "--api_mapping", dest="api_mapping", type=str, nargs="?", const=True,
                        help="<optional> The api mapping file path.")
    parser.add_argument("-dm", "--data_mapping", dest="data_mapping", type=str,
                        help="<optional> The data mapping file path.")
    parser.add_argument("-lm", "--layer_mapping", dest="layer_mapping", type=str, nargs="?", const=True,
                        help="<optional> The layer mapping file path.")
    parser.add_argument("--no-report", dest="html_report", action="store_false",
                        help="<optional> Do not write compare_report_*.html (the divergence json and "
                             "the xlsx are still written).")
    parser.add_argument("--dask", dest="dask", type=str, default=None, metavar="ADDRESS",
                        help="<optional> Compare the rank pairs of two step folders on this Dask "
                             "distributed scheduler (tcp://host:port or a scheduler file); needs "
                             "msprobe[dask] and a file system shared with the workers.")


def _run(framework, args):
    if framework == "pytorch" and (args.cell_mapping is not None or args.api_mapping is not None):
        raise MsprobeException("Argument -cm or -am is not supported in PyTorch framework")
    if framework == "pytorch" and args.layer_mapping is not None:
        log.warning("-lm (layer mapping) applies to MindSpore compare; ignored for PyTorch, as in msprobe 1.2.1")
        args.layer_mapping = None
    cfg = _core.load_compare_json(args.input_path)
    if cfg.rank_id:
        raise MsprobeException(f"{args.input_path}: rank_id/step_id select MindSpore graph-mode (L2) compare, "
                               f"which this version does not support")
    mapping = runner.mapping_spec(args.cell_mapping, args.api_mapping, args.data_mapping, args.layer_mapping)
    common = dict(framework=framework, stack_mode=args.stack_mode, auto_analyze=not args.compare_only,
                  fuzzy_match=args.fuzzy_match, mapping=mapping, html_report=args.html_report)
    npu_kind, bench_kind = _core.path_kind(cfg.npu_path), _core.path_kind(cfg.bench_path)
    for key, kind in (("npu_path", npu_kind), ("bench_path", bench_kind)):
        if kind == "missing":
            raise MsprobeException(f"{args.input_path}: {key} {getattr(cfg, key)}: no such file or folder")
    if npu_kind == "file" and bench_kind == "file":
        if args.dask:
            log.warning("--dask applies to step folders (every rank); comparing one rank here")
        input_param = {"npu_json_path": cfg.npu_path, "bench_json_path": cfg.bench_path,
                       "is_print_compare_log": cfg.is_print_compare_log}
        if cfg.stack_path is None:
            log.warning("Missing stack_path in the configuration file. Automatically detecting stack.json to "
                        "determine whether to display NPU_Stack_Info.")
        else:
            input_param["stack_json_path"] = cfg.stack_path
        runner.run_single(input_param, args.output_path, redump_suspect=cfg.suspect,
                          redump_first_source=cfg.suspect_first_source, redump_noise=cfg.suspect_noise,
                          **common)
        return 0
    if npu_kind == "folder" and bench_kind == "folder":
        if args.dask:
            from msprobe.core.compare.dask_executor import dask_executor
            with dask_executor(args.dask) as executor:
                runner.run_distributed(cfg.npu_path, cfg.bench_path, args.output_path, executor=executor,
                                       **common)
        else:
            runner.run_distributed(cfg.npu_path, cfg.bench_path, args.output_path, **common)
        return 0
    raise MsprobeException("The npu_path and bench_path need to be of the same type.")


def compare_cli(args, framework="pytorch"):
    """The CLI action. Returns the exit code: 0, or 1 after one error line per problem."""
    try:
        return _run(framework, args)
    except (ValueError, OSError) as e:  # ConfigError, MsprobeFileError, MsprobeException
        log.error(str(e))
        return 1
    except KeyboardInterrupt:
        log.error("compare: interrupted; the files already written are kept")
        return 130
