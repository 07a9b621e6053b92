"""1.2.1's csv2tensorboard_by_step (docs 19): the monitor's csv files of a run turned into
TensorBoard scalars "vp{vpp_stage}:{name}/{op}" along steps, one event folder per rank and data
type: {output_dirpath}/rank{R}/{data_type}. The C++ core reads the csv files
(read_monitor_csv_series); the tensorboard package writes the events."""
import os
import shutil
from concurrent.futures import ProcessPoolExecutor

from msprobe import _core
from msprobe.core import log
from msprobe.pytorch.monitor.output_dirs import now_tag, target_output_dirs


def _convert_rank(rank, rank_dir, output_dirpath, data_types):
    from torch.utils.tensorboard import SummaryWriter
    for data_type in data_types:
        table = _core.read_monitor_csv_series(rank_dir, data_type)
        if not table.series:
            continue
        out = os.path.join(output_dirpath, f"rank{rank}", data_type)
        if os.path.exists(out):
            log.warning(f"existing path {out} will be recovered")
            shutil.rmtree(out)
        writer = SummaryWriter(out)
        for series in table.series:
            for step, values in zip(series.steps, series.values):
                for op, value in zip(table.ops, values):
                    writer.add_scalar(f"{series.name}/{op}", value, step)
        writer.close()


def csv2tensorboard_by_step(monitor_path, time_start=None, time_end=None, process_num=1, data_type_list=None,
                            output_dirpath=None):
    if not isinstance(process_num, int) or isinstance(process_num, bool) or process_num <= 0:
        raise ValueError(f"process_num({process_num}) is not a positive integer")
    known = list(_core.monitor_data_types())
    if data_type_list is not None:
        if not isinstance(data_type_list, list):
            raise ValueError(f"data_type_list({data_type_list}) is not a list")
        for data_type in data_type_list:
            if data_type not in known:
                raise ValueError(f"data type({data_type}) is not supported, supported data type: {known}")
    data_types = data_type_list or known
    ranks = target_output_dirs(monitor_path, time_start, time_end)
    if output_dirpath is None:
        output_dirpath = os.path.join(monitor_path, f"{now_tag()}-csv2tensorboard_by_step")
    os.makedirs(output_dirpath, mode=0o750, exist_ok=True)
    if process_num == 1 or len(ranks) < 2:
        for rank, rank_dir in ranks.items():
            _convert_rank(rank, rank_dir, output_dirpath, data_types)
    else:
        with ProcessPoolExecutor(max_workers=process_num) as pool:
            for f in [pool.submit(_convert_rank, r, d, output_dirpath, data_types) for r, d in ranks.items()]:
                f.result()
    log.info(f"output has been saved to: {output_dirpath}")
    return output_dirpath
