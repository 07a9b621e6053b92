"""run_ut: replays every API call of a dump.json on the device under test (CUDA when available,
else the CPU, at the dumped dtype) and on a high-precision CPU benchmark, and writes
accuracy_checking_result_{ts}.csv and accuracy_checking_details_{ts}.csv (accuracy-checker spec §1).

    msprobe -f pytorch run_ut -api_info DUMP.json [-o OUT] [-save_error_data] [-d ID]
                              [-csv_path RESULT.csv] [-f] [-config CONFIG.json] [-j]

Python replays the framework calls; dump.json parsing, the metrics, the verdicts and the CSV files
are C++ (msprobe._core.runut / the check library). Each API is written (details rows, then its
result row) as soon as it is judged, so a killed run loses at most the API in progress and resumes
with -csv_path.
"""
import argparse
import sys

from msprobe.core import log

# Re-exported: the names 1.2.1 scripts and multi_run_ut reach through this module.
from msprobe.pytorch.run_ut.seeding import SEED, api_seed  # noqa: F401
from msprobe.pytorch.run_ut.settings import (  # noqa: F401
    RunUtError,
    RunUtSettings,
    load_checker,
    prepare_settings,
    resume_paths,
)


def _run_ut_parser(parser):
    parser.add_argument("-api_info", "--api_info_file", dest="api_info_file", default="", type=str,
                        help="the dump.json of the API calls to check (from the data dump)")
    parser.add_argument("-o", "--out_path", dest="out_path", default="", type=str,
                        help="output folder (default ./)")
    parser.add_argument("-save_error_data", dest="save_error_data", action="store_true",
                        help="save the inputs and outputs of APIs that do not pass")
    parser.add_argument("-j", "--jit_compile", dest="jit_compile", action="store_true",
                        help="NPU only: turn on jit compile")

    class UniqueDeviceAction(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            if len(values) != len(set(values)):
                parser.error("device id must be unique")
            if any(v < 0 for v in values):
                parser.error("device id must be greater than or equal to 0")
            setattr(namespace, self.dest, values)

    parser.add_argument("-d", "--device", dest="device_id", nargs="+", type=int, default=[0],
                        action=UniqueDeviceAction, help="device id(s); run_ut uses the first")
    parser.add_argument("-csv_path", "--result_csv_path", dest="result_csv_path", default="", type=str,
                        help="accuracy_checking_result_{timestamp}.csv of an interrupted run to resume")
    parser.add_argument("-f", "--filter_api", dest="filter_api", action="store_true",
                        help="skip calls identical to an earlier call of the same API except for Max/Min")
    parser.add_argument("-config", "--config_path", dest="config_path", default="", type=str,
                        help="config.json whose run_ut section sets white_list/black_list/error_data_path")


def load_dump(settings):
    from msprobe import _core
    dump = _core.runut.RunutDump.load(settings.api_info)
    for w in dump.warnings:
        log.warning(w)
    indices = dump.filter_similar() if settings.filter_api else list(range(len(dump)))
    return dump, indices


def resume_done(settings):
    """Repairs the files of an interrupted run and returns the names already checked."""
    from msprobe import _core
    rep = _core.runut.prepare_resume(settings.result_csv, settings.details_csv)
    if rep.dropped_detail_rows or rep.dropped_result_rows or rep.truncated_torn_record:
        log.info(f"Resume: removed {rep.dropped_detail_rows} details row(s) of unfinished APIs"
                 + (", a torn last row" if rep.truncated_torn_record else "")
                 + (f", {rep.dropped_result_rows} repeated result row(s)" if rep.dropped_result_rows else ""))
    return set(rep.done)


STATUS_KEYS = ("pass", "Warning", "error", "SKIP")


def run_apis(settings, dump, indices, on_done=None, should_stop=None):
    """Runs the APIs `indices` (any iterable of dump indices) and appends each one to the result
    files as soon as it is judged. Returns the Forward status counts."""
    from msprobe import _core
    from msprobe.pytorch.run_ut.api_runner import ApiRunner  # torch: only where APIs are replayed
    writer = _core.runut.ResultWriter(settings.result_csv, settings.details_csv)
    runner = ApiRunner(dump, settings)
    counts = dict.fromkeys(STATUS_KEYS, 0)
    try:
        for i in indices:
            result = runner.run(i)
            writer.write(result)
            counts[result.forward_status] = counts.get(result.forward_status, 0) + 1
            if on_done:
                on_done(i, result)
            if should_stop and should_stop():
                break
    finally:
        writer.close()
    return counts


def run_ut(settings, progress=True):
    """run_ut on the whole dump (minus the APIs already in the result file when resuming)."""
    from msprobe.core.progress import ProgressBar
    dump, kept = load_dump(settings)
    done = resume_done(settings) if settings.resume else set()
    todo = [i for i in kept if dump.name(i) not in done]
    bar = ProgressBar(len(kept), initial=len(kept) - len(todo)) if progress else None
    try:
        return run_apis(settings, dump, todo, on_done=(lambda i, r: bar.update()) if bar else None)
    finally:
        if bar:
            bar.close()


def run_ut_command(args):
    """`msprobe -f pytorch run_ut`: returns the exit status."""
    from msprobe.core.run_ut_files import run_command_body

    def body(started):
        settings = prepare_settings(args)
        started(settings)
        log.info(f"UT task result will be saved in {settings.result_csv}")
        log.info(f"UT task details will be saved in {settings.details_csv}")
        if settings.error_data_dir:
            log.info(f"UT task error_datas will be saved in {settings.error_data_dir}")
        return settings, run_ut(settings)

    status, done = run_command_body(body)
    if status:
        return status
    settings, counts = done
    total = sum(counts.values())
    report_finished_run(settings, f"{total} API(s) checked this run: "
                        + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def report_finished_run(settings, checked):
    """The end of a run_ut or multi_run_ut run: where its CSV files are, their HTML check report,
    and the `checked` counts line."""
    log.info(f"UT task result csv is saved in {settings.result_csv}")
    log.info(f"UT task details csv is saved in {settings.details_csv}")
    from msprobe.core.report_cli import write_check_report
    write_check_report(settings.details_csv)
    log.info(checked)
    log.info("Successfully completed run_ut/multi_run_ut.")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="run_ut", description="PyTorch API accuracy pre-check")
    _run_ut_parser(parser)
    return run_ut_command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
