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
        print(f"{r['dir']}: task {r['task']}, level {r['level']}, {r['entries']} entries "
              f"({r['forward']} forward, {r['backward']} backward, {r['other']} other), "
              f"{r['tensor_files']} tensor files")
    return 0
