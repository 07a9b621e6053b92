"""The rank folders of a monitor output directory, "{MonDD_HH-MM-SS}-rank{R}-{id}" (1.2.1's
names, the time in UTC+8): found by time range (csv2tensorboard_by_step, append_output)."""
import datetime
import os
import re

from msprobe.core import log

_RANK_DIR = re.compile(r"([\w-]{0,20})-rank(\d{1,5})-")   # 1.2.1's OUTPUT_DIR_PATTERN
TIME_FORMAT = "%b%d_%H-%M-%S"
_BEIJING = datetime.timezone(datetime.timedelta(hours=8))   # 1.2.1 names folders in Asia/Shanghai time


def now_tag():
    return datetime.datetime.now(_BEIJING).strftime(TIME_FORMAT)


def _time(text):
    try:
        return datetime.datetime.strptime(text, TIME_FORMAT)
    except (TypeError, ValueError):
        raise ValueError(f"illegal timestamp: {text}, timestamp should be prefix of existing output dirpath, "
                         f"like 'Dec03_21-34-40'") from None


def time_range(time_start, time_end):
    """(start, end) as datetimes (None: open); ValueError naming a bad one."""
    start = _time(time_start) if time_start is not None else None
    end = _time(time_end) if time_end is not None else None
    if start and end and start > end:
        raise ValueError(f"time_start({time_start}) greater than time_end({time_end})")
    return start, end


def target_output_dirs(monitor_path, time_start=None, time_end=None):
    """{rank: folder} of the rank folders of monitor_path whose time is in [time_start, time_end]
    (of several folders of one rank, the last by name)."""
    if not os.path.isdir(monitor_path):
        raise ValueError(f"monitor_path {monitor_path} is not a folder")
    start, end = time_range(time_start, time_end)
    found = {}
    for name in sorted(os.listdir(monitor_path)):
        m = _RANK_DIR.match(name)
        if not m:
            continue
        t = _time(m.group(1))
        if (start is None or t >= start) and (end is None or t <= end):
            found[m.group(2)] = os.path.join(monitor_path, name)
    return found


def appended_rank_dir(append_output, base_dir, rank):
    """append_output [time_start, time_end]: the folder of `rank` made in that range, where this
    run adds its files (csv files of the same steps get more rows), or None: a new folder. A bad
    timestamp is a ValueError; no such folder is a warning."""
    if not append_output:
        return None
    time_range(*append_output)
    found = target_output_dirs(base_dir, *append_output) if os.path.isdir(base_dir) else {}
    folder = found.get(str(rank))
    if folder is None:
        log.warning(f"monitor: append_output {list(append_output)}: {base_dir} has no folder of rank {rank} "
                    f"made in that time; the files go to a new folder")
    else:
        log.info(f"monitor: rank {rank} appends to {folder}")
    return folder
