"""Where a step's statistics go besides the csv files the core writes (format csv): TensorBoard
scalars "{tag}_{op}" (format tensorboard, as 1.2.1 names them), or nowhere (format api: the caller
asks generate_wgrad_metrics / generate_xy_metrics)."""
import torch

from msprobe.core import log


def metric_dicts(flushed, ops):
    """1.2.1's {tag: {op: 0-d tensor}} of a MonitorFlush."""
    return {t: {op: torch.tensor(v, dtype=torch.float64) for op, v in zip(ops, values)}
            for t, values in zip(flushed.tags, flushed.values)}


class NoOutput:
    def write(self, flushed, ops):
        pass

    def write_image(self, tag, rgba, step):
        pass

    def close(self):
        pass


class TensorBoardOutput:
    def __init__(self, log_dir):
        from torch.utils.tensorboard import SummaryWriter  # needs the tensorboard package
        self.writer = SummaryWriter(log_dir)

    def write(self, flushed, ops):
        step = flushed.step
        for t, values in zip(flushed.tags, flushed.values):
            for op, v in zip(ops, values):
                self.writer.add_scalar(f"{t}_{op}", v, global_step=step)
        self.writer.flush()

    def write_image(self, tag, rgba, step):
        """An (H, W, 4) uint8 image (ur_distribution's heat maps)."""
        self.writer.add_image(tag, rgba, global_step=step, dataformats="HWC")
        self.writer.flush()

    def close(self):
        self.writer.close()


def open_output(fmt, log_dir):
    if fmt != "tensorboard":
        return NoOutput()
    try:
        return TensorBoardOutput(log_dir)
    except ImportError as exc:
        log.error(f"monitor: format \"tensorboard\" needs the tensorboard package ({exc}); "
                  f"no TensorBoard files are written")
        return NoOutput()
