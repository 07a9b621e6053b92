"""`msprobe repair DUMP_PATH`: makes dump files cut by a kill whole again, in place, so that
json.load and 1.2.1's tools read them (the work is done in C++: msprobe/dump/dump_repair.h)."""
import os

from msprobe import _core
from msprobe.core import log


def repair_command(path):
    if not os.path.lexists(path):
        log.error(f"{path}: no such file or directory")
        return 1
    results = _core.repair_dump(path)
    counts = {}
    for _, action, message in results:
        counts[action] = counts.get(action, 0) + 1
        (log.error if action == "failed" else log.info)(message)
    if not results:
        print(f"{path}: every dump file is complete; nothing to repair")
    else:
        done = ", ".join(f"{n} {a}" for a, n in sorted(counts.items()))
        print(f"{path}: {done}")
    return 1 if counts.get("failed") else 0
