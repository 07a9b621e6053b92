"""multi_run_ut: run_ut in N worker processes sharing one pair of result files
(accuracy-checker spec §3).

    msprobe -f pytorch multi_run_ut -api_info DUMP.json -n N [-d 0 1 ...] [run_ut flags]

Workers take the next unchecked API from a shared counter (no temporary split files, so a slow API
does not hold back a whole chunk) and append each API with one write per file under a lock. When a
worker dies (out of memory, a crash inside an operator) the API it was running gets a SKIP row
saying so and a new worker continues. When all are done the two files are rewritten in dump order,
so the output matches a single-process run. Workers exit when the parent dies (kill -9
included); resume with -csv_path.
"""
import multiprocessing
import os
import signal
import sys
import time

from msprobe.core import log
from msprobe.pytorch.run_ut import run_ut as ru

MAX_RESTARTS_PER_WORKER = 16


def _multi_run_ut_parser(parser):
    ru._run_ut_parser(parser)
    parser.add_argument("-n", "--num_splits", type=int, choices=range(1, 65), default=8, metavar="N",
                        help="number of worker processes, 1..64 (default 8)")


def _die_with_parent():
    """Linux: SIGKILL this process when its parent dies."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker_main(settings, todo, device_id, threads, next_pos, lock, current, slot, counts, parent_pid):
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    import torch
    torch.set_num_threads(max(1, threads))
    settings.device_id = device_id
    dump, _ = ru.load_dump(settings)

    def claim():
        while True:
            if os.getppid() != parent_pid:
                return
            with lock:
                pos = next_pos.value
                if pos >= len(todo):
                    current[slot] = -1
                    return
                next_pos.value = pos + 1
                current[slot] = pos
            yield todo[pos]

    def done(i, result):
        with lock:
            current[slot] = -1
            k = ru.STATUS_KEYS.index(result.forward_status) if result.forward_status in ru.STATUS_KEYS else 3
            counts[k] += 1

    ru.run_apis(settings, dump, claim(), on_done=done)


def _exit_text(code):
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


def multi_run_ut_command(args):
    from msprobe import _core
    from msprobe.core.progress import ProgressBar
    settings = None
    procs = []
    try:
        settings = ru.prepare_settings(args)
        dump, kept = ru.load_dump(settings)
        if settings.resume:
            done = ru.resume_done(settings)
        else:
            done = set()
            _core.runut.ResultWriter(settings.result_csv, settings.details_csv).close()  # headers
        log.info(f"UT task result will be saved in {settings.result_csv}")
        log.info(f"UT task details will be saved in {settings.details_csv}")
        if settings.error_data_dir:
            log.info(f"UT task error_datas will be saved in {settings.error_data_dir}")
        todo = [i for i in kept if dump.name(i) not in done]
        n = max(1, min(args.num_splits, len(todo))) if todo else 0
        log.info(f"Starting parallel UT with {n} process(es) for {len(todo)} API(s)")
        ctx = multiprocessing.get_context("spawn")
        next_pos = ctx.Value("q", 0, lock=False)
        lock = ctx.Lock()
        current = ctx.Array("q", [-1] * max(n, 1), lock=False)
        counts = ctx.Array("q", [0] * len(ru.STATUS_KEYS), lock=False)
        threads = max(1, (os.cpu_count() or 1) // max(n, 1))
        devices = args.device_id
        restarts = [0] * n

        def start(slot):
            p = ctx.Process(target=_worker_main, name=f"run_ut-worker-{slot}",
                            args=(settings, todo, devices[slot % len(devices)], threads, next_pos, lock,
                                  current, slot, counts, os.getpid()))
            p.daemon = True
            p.start()
            return p

        procs = [start(s) for s in range(n)]
        bar = ProgressBar(len(kept), initial=len(kept) - len(todo), desc="Total items")
        skip_writer = None
        try:
            while any(p is not None for p in procs):
                for slot, p in enumerate(procs):
                    if p is None or p.is_alive():
                        continue
                    p.join()
                    with lock:
                        pos = current[slot]
                        current[slot] = -1
                    if p.exitcode != 0 and pos >= 0:
                        name = dump.name(todo[pos])
                        msg = (f"The run_ut worker process died ({_exit_text(p.exitcode)}) while running "
                               f"API {name}; it was not checked. SKIP.")
                        log.error(msg)
                        res = _core.runut.ApiResult(name, settings.checker.precision)
                        res.skip(msg)
                        if skip_writer is None:
                            skip_writer = _core.runut.ResultWriter(settings.result_csv, settings.details_csv)
                        skip_writer.write(res)
                        with lock:
                            counts[3] += 1
                    procs[slot] = None
                    with lock:
                        more = next_pos.value < len(todo)
                    if p.exitcode != 0 and more and restarts[slot] < MAX_RESTARTS_PER_WORKER:
                        restarts[slot] += 1
                        procs[slot] = start(slot)
                bar.set(len(kept) - len(todo) + sum(counts))
                time.sleep(0.05)
        finally:
            bar.set(len(kept) - len(todo) + sum(counts))
            bar.close()
            if skip_writer is not None:
                skip_writer.close()
        checked = sum(counts)
        if checked < len(todo):
            log.warning("The UT task has not been completed. The parameter '-csv_path' along with the path to "
                        "the result CSV file will be utilized to resume the UT task.")
        _core.runut.reorder_result_files(settings.result_csv, settings.details_csv, dump.names())
    except (ru.RunUtError, _core.ConfigError, _core.MsprobeFileError, ValueError, OSError) as e:
        log.error(str(e))
        return 1
    except KeyboardInterrupt:
        for p in procs:
            if p is not None and p.is_alive():
                p.terminate()
        for p in procs:
            if p is not None:
                p.join(timeout=5)
        if settings is not None:
            log.warning(f"Interrupted. Resume with: -csv_path {settings.result_csv}")
        return 130
    ru.report_finished_run(settings, f"{checked} API(s) checked this run: "
                           + ", ".join(f"{counts[k]} {s}" for k, s in enumerate(ru.STATUS_KEYS)))
    return 0 if checked >= len(todo) else 1


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(prog="multi_run_ut", description="run_ut in parallel worker processes")
    _multi_run_ut_parser(parser)
    return multi_run_ut_command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
