"""`msprobe summary DUMP_PATH`: what a dump holds, per step and rank."""
import os

from msprobe import _core
from msprobe.core import log


def print_summary(dump_path):
    if not os.path.isdir(dump_path):
        log.error(f"{dump_path}: no such dump directory")
        return 1
    try:
        rows = _core.summarize_dump(dump_path)
    except (ValueError, OSError) as e:
        log.error(str(e))
        return 1
    if not rows:
        log.error(f"{dump_path}: no step*/rank*/dump.json found")
        return 1
    for r in rows:
        print(f"{r.dir}: task {r.task}, level {r.level}, {r.entries} entries "
              f"({r.forward} forward, {r.backward} backward, {r.other} other), "
              f"{r.tensor_files} tensor files")
        if r.incomplete:
            print(f"{r.dir}: {r.incomplete}")
    if any(r.task == "overflow_check" for r in rows):
        try:
            report = _core.overflow_report(dump_path)
        except (ValueError, OSError) as e:
            log.error(str(e))
            return 1
        print_overflow_report(report)
    return 0


def _where(first):
    rank = "not distributed" if first.rank is None else f"rank {first.rank}"
    text = f"{first.entry} ({first.kind.replace('_', ' ')}) at step {first.step}, {rank}"
    return text + (f", called at {first.source}" if first.source else "")


def print_overflow_report(report):
    """overflow_check: per step and rank what overflowed, then the earliest across ranks."""
    for r in report.rows:
        line = f"{r.dir}: overflow_check: {r.overflows} overflowing entries, " \
               f"{r.culprits} produced inf/NaN from finite inputs"
        if r.first_culprit:
            line += f"; first culprit {r.first_culprit.entry}"
        if r.first and r.first != r.first_culprit:
            line += f"; first overflow {r.first.entry}"
        if r.limit_reached:
            line += "; overflow_nums reached"
        print(line)
    if report.earliest_culprit:
        print(f"earliest culprit across ranks: {_where(report.earliest_culprit)}")
    if report.earliest and report.earliest != report.earliest_culprit:
        print(f"earliest overflow across ranks: {_where(report.earliest)}")
    if not report.earliest:
        print("no overflow found")
