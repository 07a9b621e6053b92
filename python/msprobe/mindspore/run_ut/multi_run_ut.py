"""MindSpore's multi_run_ut: one worker process per -d device id, APIs dealt out round-robin as
1.2.1 does. Workers append each API to the shared files under the writer's lock; when all are done
the files are rewritten in dump order (1.2.1 kept worker order and dropped the SKIP rows; see
docs/compatibility.md)."""
import multiprocessing

from msprobe.core import log
from msprobe.mindspore.run_ut import run_ut as ru


def _worker(settings, todo, device_id, queue):
    dump, _ = ru.load_dump(settings.api_info)
    if dump.task == "statistics":  # MindSpore runs only for statistics dumps
        try:
            import mindspore
            mindspore.set_context(device_id=device_id)
        except Exception:  # noqa: BLE001  (a CPU build may refuse a device id; the run goes on)
            pass
    queue.put(ru.run_apis(settings, dump, todo))


def multi_run_ut(settings, device_ids):
    from msprobe import _core
    dump, kept, todo = ru.pending(settings)
    shares = [todo[k::len(device_ids)] for k in range(len(device_ids))]
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(settings, share, dev, queue))
             for share, dev in zip(shares, device_ids) if share]
    for p in procs:
        p.start()
    counts = dict.fromkeys(ru.STATUS_KEYS, 0)
    for p in procs:
        p.join()
        if p.exitcode != 0:
            log.error(f"worker {p.pid} exited with status {p.exitcode}; resume with -csv_path {settings.result_csv}")
    while not queue.empty():
        for k, v in queue.get().items():
            counts[k] += v
    if any(p.exitcode != 0 for p in procs):
        raise ru.RunUtError(f"a worker failed; resume with -csv_path {settings.result_csv}")
    _core.runut.reorder_result_files(settings.result_csv, settings.details_csv, [dump.name(i) for i in kept])
    return counts
