"""enable_dataloader (deprecated in 1.2.1, kept for compatibility): each batch fetched from a
DataLoader ends the previous iteration (stop + step) and starts dumping the next one."""
from torch.utils.data.dataloader import _BaseDataLoaderIter

from msprobe.core import log


def install(debugger):
    if getattr(_BaseDataLoaderIter.__next__, "__msprobe_dataloader__", False):
        return
    original_next = _BaseDataLoaderIter.__next__

    def __next__(self):
        if debugger.started_by_dataloader:
            debugger._stop_impl()
            debugger._step_impl()
            debugger.started_by_dataloader = False
        batch = original_next(self)          # StopIteration at the end: no empty step opened
        debugger._start_impl(None)
        debugger.started_by_dataloader = True
        return batch

    __next__.__msprobe_dataloader__ = True
    _BaseDataLoaderIter.__next__ = __next__
    log.warning("enable_dataloader is deprecated: each DataLoader batch now starts a dump step; "
                "explicit start()/stop()/step() calls are ignored")
