"""`msprobe report DUMP [BENCH_DUMP] -o OUT`: the self-contained HTML report (C++ builds it)."""
import os

from msprobe import _core
from msprobe.core import log


def add_report_parser(sub):
    r = sub.add_parser("report", help="write a self-contained HTML report of a dump, or of a "
                                      "dump compared with a bench dump")
    r.add_argument("dump_path", help="dump.json, a rank folder, a dump_path of step*/rank*/, "
                                     "a run_ut / api_precision_compare details CSV, a "
                                     "GradComparator output folder (grad_probe), or a training "
                                     "monitor's MONITOR_OUTPUT_DIR")
    r.add_argument("bench_dump_path", nargs="?", help="the bench dump to compare with")
    r.add_argument("-o", "--output", default=".",
                   help="output .html file, or a folder for {dump,compare,check,grad,monitor}_report_{timestamp}.html")
    r.add_argument("--title", default="", help="page title")
    # MindSpore-vs-PyTorch name mappings, as `msprobe -f mindspore compare` takes them.
    r.add_argument("-am", "--api_mapping", nargs="?", const=True, default=None,
                   help="map MindSpore API names to PyTorch's (optional user yaml)")
    r.add_argument("-cm", "--cell_mapping", nargs="?", const=True, default=None,
                   help="map MindSpore Cell names to PyTorch Module names (optional user yaml)")
    r.add_argument("-dm", "--data_mapping", default=None, help="explicit row-name pairs (yaml)")
    r.add_argument("-lm", "--layer_mapping", default=None, help="layer mapping (yaml)")
    return r


def write_check_report(details_csv):
    """The page beside a run_ut / api_precision_compare details CSV; a failure only warns (the
    CSVs are the result)."""
    try:
        path = _core.report.check_report_path(details_csv)
        _core.report.write_report_file(path, _core.report.render_check_report(details_csv))
    except (ValueError, OSError) as e:
        log.warning(f"no HTML report: {e}")
        return None
    log.info(f"HTML report: {path}")
    return path


def _output_file(output, kind):
    if output.endswith(".html"):
        return output
    return os.path.join(output, f"{kind}_report_{_core.timestamp_now()}.html")


def report_command(args):
    for p in (args.dump_path, args.bench_dump_path):
        if p is not None and not os.path.exists(p):
            log.error(f"report: {p}: no such file or folder")
            return 1
    summary = "" if args.bench_dump_path else _core.report.free_benchmark_summary_of(args.dump_path)
    kind = ("compare" if args.bench_dump_path else "check" if args.dump_path.endswith(".csv")
            else "free_benchmark" if summary else "dump")
    if not args.bench_dump_path and _core.report.is_grad_compare_output(args.dump_path):
        kind = "grad"
    elif not args.bench_dump_path and _core.report.is_monitor_output(args.dump_path):
        kind = "monitor"
    out = _output_file(args.output, kind)
    folder = os.path.dirname(out) or "."
    if not os.path.isdir(folder):
        log.error(f"report: {folder}: no such output folder")
        return 1
    try:
        if args.bench_dump_path:
            mapper = None
            if args.api_mapping or args.cell_mapping or args.data_mapping or args.layer_mapping:
                from msprobe.core.compare_mappings import name_mapper
                mapper = name_mapper(args.cell_mapping, args.api_mapping, args.data_mapping,
                                     args.layer_mapping)
            html = _core.report.render_pair_report(args.dump_path, args.bench_dump_path,
                                                   args.title, args.framework, mapper)
        elif kind == "free_benchmark":
            html = _core.report.render_free_benchmark_report(summary, args.title)
        elif kind == "grad":
            html = _core.report.render_grad_report(args.dump_path, args.title)
        elif kind == "monitor":
            html = _core.report.render_monitor_report(args.dump_path, args.title)
        elif kind == "check":
            html = _core.report.render_check_report(args.dump_path, args.title)
        else:
            html = _core.report.render_dump_report(args.dump_path, args.title)
        _core.report.write_report_file(out, html)
    except (ValueError, OSError) as e:
        log.error(f"report: {e}")
        return 1
    log.info(f"report written to {out} ({len(html) / 1e6:.1f} MB)")
    print(out)
    return 0
