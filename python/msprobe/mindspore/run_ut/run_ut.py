"""MindSpore's run_ut and multi_run_ut (1.2.1 docs 09):

    msprobe -f mindspore run_ut -api_info DUMP.json [-o OUT] [-csv_path RESULT.csv]
    msprobe -f mindspore multi_run_ut -api_info DUMP.json [-o OUT] [-csv_path RESULT.csv] [-d 0 1 ...]

Replays the Mint, MintFunctional and listed Tensor APIs of a MindSpore dump against PyTorch on the
CPU and writes accuracy_checking_result_{ts}.csv / accuracy_checking_details_{ts}.csv. The dump is
read by the C++ reader (msprobe._core.runut.RunutDump), the metrics, rows and files are C++
(MsApiResult, ResultWriter); replay.py only calls the frameworks. Each API is written as soon as
it is judged; a killed run resumes with -csv_path.
"""
import argparse
import contextlib
import gc
import os

from msprobe.core import log
from msprobe.core.run_ut_files import RunUtError, _check_input_file, prepare_out_dir, resume_paths

FRAMEWORK = "mindspore"
CHECKED_TYPES = ("Mint", "MintFunctional")
TORCH_MISSING = ("MindSpore's run_ut compares against PyTorch on the CPU, which is not installed: "
                 "pip install torch (a CPU build is enough)")
STATUS_KEYS = ("pass", "error", "SKIP")


def add_arguments(parser, multi=False):
    parser.add_argument("-api_info", "--api_info_file", dest="api_info_file", type=str, required=True,
                        help="the dump.json of a MindSpore tensor or statistics dump")
    parser.add_argument("-o", "--out_path", dest="out_path", default="./", type=str,
                        help="output folder (default ./)")
    parser.add_argument("-csv_path", "--result_csv_path", dest="result_csv_path", default="", type=str,
                        help="accuracy_checking_result_{timestamp}.csv of an interrupted run to resume")
    if multi:
        def device_ids(text):
            value = int(text)
            if not 0 <= value <= 4095:
                raise argparse.ArgumentTypeError(f"the device id must be in [0, 4095], got {value}")
            return value
        parser.add_argument("-d", "--device", dest="device_id", nargs="+", type=device_ids, default=[0],
                            help="device ids: one worker process each")


@contextlib.contextmanager
def frameworks_loading():
    """torch and MindSpore make millions of objects while they load: the cyclic garbage collector
    is paused meanwhile, and what they made is then frozen out of later collections, which walk
    only the replay's own objects (a fifth of a statistics dump's CPU time went to collections)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def require_torch():
    try:
        with frameworks_loading():
            import torch  # noqa: F401
    except ImportError:
        raise RunUtError(TORCH_MISSING) from None


def supported_tensor_apis():
    from msprobe.core.yaml_file import load_yaml_file
    doc = load_yaml_file(os.path.join(os.path.dirname(os.path.abspath(__file__)), "checker_support_api.yaml"))
    return frozenset(doc.get("tensor") or ())


def is_checkable(name, tensor_apis):
    """1.2.1's rule: every Mint / MintFunctional API; Tensor APIs of checker_support_api.yaml."""
    parts = name.split(".")
    if len(parts) < 3:
        return False
    return parts[0] in CHECKED_TYPES or (parts[0] == "Tensor" and ".".join(parts[1:-1]) in tensor_apis)


class Settings:
    def __init__(self, api_info, result_csv, details_csv, resume):
        self.api_info, self.result_csv, self.details_csv, self.resume = api_info, result_csv, details_csv, resume


def prepare_settings(args):
    api_info = _check_input_file(args.api_info_file, "-api_info", ".json")
    out_dir = prepare_out_dir(args.out_path)
    if args.result_csv_path:
        result, details, _ = resume_paths(args.result_csv_path)
        return Settings(api_info, result, details, True)
    from msprobe import _core
    ts = _core.timestamp_now()
    return Settings(api_info, os.path.join(out_dir, f"accuracy_checking_result_{ts}.csv"),
                    os.path.join(out_dir, f"accuracy_checking_details_{ts}.csv"), False)


def load_dump(path):
    """(RunutDump, indices of the APIs to check); one-line RunUtError for a dump it cannot check."""
    from msprobe import _core
    dump = _core.runut.RunutDump.load(path)
    if dump.framework == "pytorch":
        raise RunUtError(f"{path}: is a PyTorch dump (framework \"pytorch\"): check it with "
                         "msprobe -f pytorch run_ut")
    if dump.task not in ("statistics", "tensor"):
        raise RunUtError(f"{path}: task is {dump.task or 'missing'!r}: MindSpore run_ut checks a "
                         "\"tensor\" or \"statistics\" dump")
    if dump.task == "tensor" and not dump.has_real_data:
        raise RunUtError(f"{path}: a tensor dump without dump_data_dir: its tensors cannot be found")
    for w in dump.warnings:
        if "does not end in .forward or .backward" not in w:  # cells and modules: not APIs
            log.warning(w)
    tensor_apis = supported_tensor_apis()
    names = dump.names()
    kept = [i for i, n in enumerate(names) if is_checkable(n, tensor_apis)]
    if not kept:
        raise RunUtError(f"{path}: no API to check: MindSpore run_ut checks Mint and MintFunctional APIs "
                         "and the Tensor APIs of its checker_support_api.yaml")
    if len(kept) < len(names):
        log.info(f"{len(names) - len(kept)} API(s) of the dump are not checked by MindSpore run_ut "
                 "(not Mint, MintFunctional or a supported Tensor API)")
    return dump, kept


def resume_done(settings):
    from msprobe import _core
    rep = _core.runut.prepare_resume(settings.result_csv, settings.details_csv, FRAMEWORK)
    if rep.dropped_detail_rows or rep.truncated_torn_record:
        log.info(f"Resume: removed {rep.dropped_detail_rows} details row(s) of unfinished APIs"
                 + (", a torn last row" if rep.truncated_torn_record else ""))
    return set(rep.done)


def run_apis(settings, dump, indices, on_done=None):
    """Checks the APIs `indices`, appending each to the result files as soon as it is judged."""
    from msprobe import _core
    from msprobe.mindspore.run_ut.replay import MsApiRunner
    with frameworks_loading():
        runner = MsApiRunner(dump)  # imports MindSpore for a statistics dump
    writer = _core.runut.ResultWriter(settings.result_csv, settings.details_csv, FRAMEWORK)
    counts = dict.fromkeys(STATUS_KEYS, 0)
    try:
        for i in indices:
            result = runner.run(i)
            writer.write(result)
            if result.forward_status in counts:
                counts[result.forward_status] += 1
            if on_done:
                on_done(i)
    finally:
        writer.close()
    return counts


def pending(settings):
    dump, kept = load_dump(settings.api_info)
    done = resume_done(settings) if settings.resume else set()
    return dump, kept, [i for i in kept if dump.name(i) not in done]


def run_ut(settings, progress=True):
    from msprobe.core.progress import ProgressBar
    dump, kept, todo = pending(settings)
    bar = ProgressBar(len(kept), initial=len(kept) - len(todo)) if progress else None
    try:
        return run_apis(settings, dump, todo, on_done=(lambda i: bar.update()) if bar else None)
    finally:
        if bar:
            bar.close()


def run_command(command_name, argv):
    """`msprobe -f mindspore run_ut|multi_run_ut ARGV...`: parses and runs; returns the exit status."""
    import sys
    parser = argparse.ArgumentParser(prog=f"msprobe -f mindspore {command_name}",
                                     description="MindSpore API accuracy pre-check against PyTorch on the CPU")
    multi = command_name == "multi_run_ut"
    add_arguments(parser, multi=multi)

    def error(message):  # user errors: one line, exit status 1 (no usage dump)
        log.error(f"{command_name}: {message}")
        sys.exit(1)
    parser.error = error
    args = parser.parse_args(argv)
    if multi and len(set(args.device_id)) != len(args.device_id):
        error("device id must be unique")
    return command(args, multi=multi)


def command(args, multi=False):
    """`msprobe -f mindspore run_ut|multi_run_ut`: returns the exit status."""
    from msprobe.core.run_ut_files import run_command_body

    def body(started):
        require_torch()
        settings = prepare_settings(args)
        started(settings)
        log.info(f"UT task result will be saved in {settings.result_csv}")
        log.info(f"UT task details will be saved in {settings.details_csv}")
        if multi:
            from msprobe.mindspore.run_ut.multi_run_ut import multi_run_ut
            return settings, multi_run_ut(settings, args.device_id)
        return settings, run_ut(settings)

    status, done = run_command_body(body)
    if status:
        return status
    settings, counts = done
    log.info(f"{sum(counts.values())} API(s) checked this run (forward): "
             + ", ".join(f"{v} {k}" for k, v in counts.items()))
    log.info(f"UT task result csv is saved in {settings.result_csv}")
    log.info(f"UT task details csv is saved in {settings.details_csv}")
    return 0
