"""The earliest anomalies of a monitored run, across ranks (1.2.1's anomaly_analyse, docs 19):

    python -m msprobe.pytorch.monitor.anomaly_analyse -d MONITOR_OUTPUT_DIR/anomaly_detected
        [-o OUT_DIR] [-k TOP_K] [-s "[STEP, ...]"]

writes OUT_DIR (default: the data folder)/anomaly_analyse.json and lists them. The C++ core reads,
orders and writes; this module parses the command line."""
import argparse
import ast
import sys

from msprobe import _core
from msprobe.core import log


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="anomaly_analyse")
    ap.add_argument("-d", "--data_path", dest="data_path_dir", required=True,
                    help="the anomaly_detected folder written by the monitor")
    ap.add_argument("-o", "--out_path", dest="out_path", default="", help="where anomaly_analyse.json goes")
    ap.add_argument("-k", "--topk", dest="top_k_number", default=8, type=int, help="how many earliest anomalies")
    ap.add_argument("-s", "--step", dest="step_list", default="[]", help='the steps to look at, e.g. "[1, 2]"')
    return ap.parse_args(argv)


def steps_of(text):
    try:
        steps = ast.literal_eval(text)
    except (ValueError, SyntaxError, RecursionError):
        steps = None
    if not isinstance(steps, list) or not all(isinstance(s, int) for s in steps):
        raise ValueError(f"-s/--step: {text!r} is not a list of steps such as \"[1, 2]\"")
    return steps


def anomaly_analyse(data_path, out_path="", top_k=8, steps=()):
    entries = _core.earliest_anomalies(_core.read_anomalies(data_path), top_k, list(steps))
    path = _core.write_anomaly_analysis(out_path or data_path, entries)
    log.info(f"anomaly_analyse.json is at {path}")
    log.info(f"Top {top_k} anomalies are listed as follows:")
    for i, e in enumerate(entries):
        log.info(f"{i}: {e.message}")
    return entries


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        anomaly_analyse(args.data_path_dir, args.out_path, args.top_k_number, steps_of(args.step_list))
    except (ValueError, OSError) as exc:
        log.error(f"anomaly_analyse: {exc}")
        return 1
    log.info("Analyse task completed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
