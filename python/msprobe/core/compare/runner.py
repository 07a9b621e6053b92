"""Running compare for one rank or for every rank of two step folders, and printing what the C++
core reports. The comparison, the xlsx, the advisor and all checks of the inputs happen in C++
(msprobe._core.compare_job); this module validates Python arguments, reads the mapping YAML files,
fans ranks out over an executor and shows progress.

Ranks run in parallel: by default on a thread pool of this process (the C++ work releases the
GIL), at most max(1, (cpus + 1) // 4) ranks at a time so that memory stays bounded, each rank
using its share of the cores; or on any concurrent.futures.Executor the caller passes
(a ProcessPoolExecutor, a Dask distributed Client's executor, ...). A rank that fails does not
stop the others: their results are written, the failures are reported at the end.
"""
import concurrent.futures
import os

from msprobe import _core
from msprobe.core import log
from msprobe.core.errors import MsprobeException

_SECURITY_NOTE = "Please check whether the input data belongs to you. If not, there may be security risks."
_ENDS = "msprobe compare ends successfully."


class CompareFailed(MsprobeException):
    """Some ranks of a multi-rank compare failed (the others were written)."""


def check_bool_options(**values):
    """1.2.1's check_configuration_param: these options must be real booleans."""
    for name, value in values.items():
        if not isinstance(value, bool):
            raise MsprobeException(f"Invalid input parameter, {name}={value!r} which should be only bool type.")


def mapping_spec(cell_mapping=None, api_mapping=None, data_mapping=None, layer_mapping=None):
    """The name-mapping options (-cm/-am/-dm/-lm; True for a flag given without a file, a path
    otherwise; data_mapping may also be a dict, as 1.2.1's API accepts) as a picklable dict, or
    None when no mapping is asked for. Each rank builds its own mapper from it (build_mapper):
    a mapper keeps per-rank state and cannot travel to worker processes."""
    spec = {key: value for key, value in (("cell_mapping", cell_mapping), ("api_mapping", api_mapping),
                                          ("data_mapping", data_mapping), ("layer_mapping", layer_mapping))
            if value is not None and value is not False}
    if isinstance(spec.get("data_mapping"), dict):
        spec["data_mapping"] = {str(k): str(v) for k, v in spec["data_mapping"].items()}
    elif "data_mapping" in spec and not isinstance(spec["data_mapping"], str):
        raise MsprobeException(f"data_mapping must be a YAML path or a dict, got "
                               f"{type(data_mapping).__name__}")
    return spec or None


def build_mapper(spec, npu_json, bench_json):
    """The C++ NameMapper for a mapping_spec and one pair of dumps (the YAML files are read here;
    a layer mapping also reads the dumps), or None."""
    if not spec:
        return None
    table = spec.get("data_mapping")
    if isinstance(table, dict) and not spec.get("layer_mapping"):
        return _core.DataMapper(list(table.items()))
    from msprobe.core.compare_mappings import name_mapper
    if isinstance(table, dict):
        spec = {k: v for k, v in spec.items() if k != "data_mapping"}   # -lm wins, as in 1.2.1
    return name_mapper(**spec, npu_dump_json=npu_json, bench_dump_json=bench_json)


def _check_mapping(spec):
    """Reads the mapping files once before the ranks start, so a bad file is one error, not one
    per rank (a layer mapping also needs the dumps: it is checked per rank)."""
    if spec and not spec.get("layer_mapping"):
        build_mapper(spec, None, None)


def _replay_suspect(*args):
    """compare's float64 replay of a suspect API of a PyTorch dump on each run's dumped inputs
    (run_ut's replay machinery). torch is imported only when a compare of two tensor dumps has a
    suspect to replay."""
    from msprobe.pytorch.run_ut.suspect_replay import replay_float64
    return replay_float64(*args)


def _replay_ms_suspect(*args):
    """The same for a MindSpore dump (MindSpore run_ut's machinery, PyTorch as the reference)."""
    from msprobe.mindspore.run_ut.suspect_replay import replay_float64
    return replay_float64(*args)


def _replay_for(framework):
    """The replay callable of a framework's compare."""
    return _replay_suspect if framework == "pytorch" else _replay_ms_suspect


def _rank_job(job):
    """Runs one rank's job (in a worker thread, process or Dask worker). Never raises for bad
    input: returns the report with "error" set instead, so the other ranks go on."""
    try:
        job = dict(job)
        spec = job.pop("mapping", None)
        job["name_mapper"] = build_mapper(spec, job["npu_json"], job["bench_json"])
        job["save_data_mapping"] = bool(spec and spec.get("layer_mapping"))
        return _core.compare_job(**job)
    except (ValueError, OSError) as e:  # ConfigError, MsprobeFileError, MsprobeException
        return _failed_rank(job.get("suffix", ""), str(e) or type(e).__name__)


def _failed_rank(suffix, error):
    """The report of a rank that did not run: no files, its error line."""
    report = _core.CompareJobReport()
    report.suffix, report.error = suffix, error
    return report


def _print_report(report, label=""):
    prefix = f"[{label}] " if label else ""
    for line in report.warnings:
        log.warning(prefix + line)
    if not report.xlsx_path:
        return
    log.info(f"{prefix}Saving Excel file to disk: {report.xlsx_path}")
    if report.advisor_path:
        advisor = report.advisor
        if advisor.found:
            log.warning(f"{prefix}Find {advisor.suspect_node} accuracy not reached, the line is "
                        f"{advisor.line}")
        elif not report.suspects:
            log.info(f"{prefix}All data from api input/output accuracy reached")
        log.info(f"{prefix}The summary of the expert advice is as follows: ")
        for line in advisor.lines:
            log.info(prefix + line)
        log.info(f"{prefix}The advisor summary is saved in: {report.advisor_path}")
    if report.redump_check:
        log.warning(prefix + report.redump_check)
    if report.first_divergence:
        log.warning(prefix + report.first_divergence)
    if report.replay:
        log.warning(prefix + report.replay)
    if report.next_steps:
        log.info(prefix + report.next_steps)
    if report.divergence_path:
        log.info(f"{prefix}First-divergence suspects ({report.suspects}) are saved in: "
                 f"{report.divergence_path}")
    if report.report_path:
        log.info(f"{prefix}The HTML report is saved in: {report.report_path}")


def _print_ends():
    width = len(_ENDS) + 50
    log.info("*" * width)
    log.info(f"*{_ENDS.center(width - 2)}*")
    log.info("*" * width)


class _StageProgress:
    """One progress bar per stage the core reports: "read" (dump entries matched), "compare"
    (rows whose tensors are compared)."""

    DESCRIPTIONS = {"read": "API/Module Read Progress", "compare": "Compare Progress"}

    def __init__(self):
        self.stage = None
        self.bar = None

    def __call__(self, stage, done, total):
        if stage != self.stage:
            self.close()
            from msprobe.core.progress import ProgressBar
            self.stage = stage
            self.bar = ProgressBar(total, desc=self.DESCRIPTIONS.get(stage, stage))
        self.bar.set(min(done, total))   # the read stage may count one step past its total

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def run_single(input_param, output_path, *, framework="pytorch", stack_mode=False, auto_analyze=True,
               fuzzy_match=False, mapping=None, suffix="", progress=True, threads=0, html_report=True,
               redump_suspect="", redump_first_source="", redump_noise=None):
    """Compares one pair of dump.json files described by 1.2.1's input_param dict
    (npu_json_path, bench_json_path, optional stack_json_path, is_print_compare_log); mapping is a
    mapping_spec(). redump_suspect: the suspect a scoped re-dump was made for (compare.json
    "suspect"), whose verdict the compare then gives, judged by redump_noise (the noise model of
    the compare that proposed it). Returns the core's report. Raises ConfigError /
    MsprobeFileError / MsprobeException (one line)."""
    if not isinstance(input_param, dict):
        raise MsprobeException(f"Invalid input parameter 'input_param', the expected type dict but got "
                               f"{type(input_param).__name__}.")
    if not isinstance(output_path, str):
        raise MsprobeException(f"Invalid input parameter 'output_path', the expected type str but got "
                               f"{type(output_path).__name__}.")
    check_bool_options(stack_mode=stack_mode, auto_analyze=auto_analyze, fuzzy_match=fuzzy_match,
                       is_print_compare_log=input_param.get("is_print_compare_log", True))
    paths = {}
    for key in ("npu_json_path", "bench_json_path", "stack_json_path"):
        value = input_param.get(key)
        if key != "stack_json_path" or key in input_param:
            if not isinstance(value, str) or not value:
                raise MsprobeException(f"input_param: \"{key}\" must be the path of a "
                                       f"{'stack' if key == 'stack_json_path' else 'dump'}.json file, "
                                       f"got {value!r}")
        paths[key] = value
    mapper = build_mapper(mapping, paths["npu_json_path"], paths["bench_json_path"])
    log.info(_SECURITY_NOTE)
    bar = _StageProgress() if progress else None
    try:
        report = _core.compare_job(framework, paths["npu_json_path"], paths["bench_json_path"], output_path,
                                   suffix=suffix, stack_json=paths["stack_json_path"], stack_mode=stack_mode,
                                   auto_analyze=auto_analyze, fuzzy_match=fuzzy_match, threads=threads,
                                   progress=bar, name_mapper=mapper,
                                   save_data_mapping=bool(mapping and mapping.get("layer_mapping")),
                                   html_report=html_report, replay=_replay_for(framework),
                                   redump_suspect=redump_suspect, redump_first_source=redump_first_source,
                                   redump_noise=redump_noise)
    finally:
        if bar is not None:
            bar.close()
    _print_report(report)
    if report.xlsx_path:
        _print_ends()
    return report


def _merge_divergence(reports, output_path, timestamp):
    """divergence_{ts}.json: the suspects of every rank ranked together (earliest across ranks
    first), and the first of them on the terminal."""
    files = [r.divergence_path for r in reports if not r.error and r.divergence_path]
    if len(files) < 2:
        return
    path = os.path.join(output_path, f"divergence_{timestamp}.json")
    try:
        line = _core.merge_rank_divergence(files, path)
    except (ValueError, OSError) as e:
        log.error(f"first divergence across ranks: {e}")
        return
    if line:
        log.warning(f"Across all ranks: {line}")
    log.info(f"First-divergence suspects of all ranks are saved in: {path}")


def default_parallelism(n_ranks, parallel_ranks=None):
    """(ranks at a time, threads per rank) for the built-in thread pool."""
    cpus = os.cpu_count() or 1
    wanted = (cpus + 1) // 4 if parallel_ranks is None else int(parallel_ranks)
    workers = max(1, min(n_ranks, wanted))
    return workers, max(1, cpus // workers)


def run_distributed(npu_dump_dir, bench_dump_dir, output_path, *, framework="pytorch", stack_mode=False,
                    auto_analyze=True, fuzzy_match=False, mapping=None, executor=None, threads_per_rank=None,
                    parallel_ranks=None, progress=True, html_report=True):
    """Compares every rank pair of two step folders (1.2.1's compare_distributed); writes
    compare_result_{npu rank}-{bench rank}_{ts}.xlsx (and advisor files) per pair. Returns the
    per-rank reports. Raises ConfigError / MsprobeFileError for bad folders (nothing written) and
    CompareFailed after all ranks ran when some failed."""
    check_bool_options(stack_mode=stack_mode, auto_analyze=auto_analyze, fuzzy_match=fuzzy_match)
    for name, value in (("npu_dump_dir", npu_dump_dir), ("bench_dump_dir", bench_dump_dir),
                        ("output_path", output_path)):
        if not isinstance(value, str):
            raise MsprobeException(f"Invalid input parameter '{name}', the expected type str but got "
                                   f"{type(value).__name__}.")
    if executor is not None and not isinstance(executor, concurrent.futures.Executor):
        raise MsprobeException(f"executor must be a concurrent.futures.Executor, got {type(executor).__name__}")
    _check_mapping(mapping)
    pairs = _core.pair_rank_dirs(npu_dump_dir, bench_dump_dir)
    _core.prepare_output_dir(output_path)
    log.info(_SECURITY_NOTE)
    own_pool = executor is None
    runnable = [p for p in pairs if not p.error]
    if own_pool:
        workers, threads = default_parallelism(len(runnable), parallel_ranks)
        executor = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
    else:
        threads = 0
    if threads_per_rank is not None:
        threads = int(threads_per_rank)
    timestamp = _core.timestamp_now()   # one for every rank's files and the merged divergence
    # 1.2.1 passes no stack_json_path per rank: each rank shows NPU_Stack_Info when its stack.json
    # exists, whatever stack_mode says.
    jobs = [dict(framework=framework, npu_json=p.npu_dump_json, bench_json=p.bench_dump_json,
                 output_dir=output_path, suffix=p.suffix, stack_json=None, stack_mode=stack_mode,
                 auto_analyze=auto_analyze,
                 fuzzy_match=fuzzy_match, threads=threads, mapping=mapping, timestamp=timestamp,
                 html_report=html_report, replay=_replay_for(framework)) for p in runnable]
    results = {p.suffix: _failed_rank(p.suffix, p.error) for p in pairs if p.error}
    for p in pairs:
        if p.error:
            log.error(f"[{p.suffix.lstrip('_')}] {p.error}")
    bar = None
    finished = False
    futures = {}
    if progress and jobs:
        from msprobe.core.progress import ProgressBar
        bar = ProgressBar(len(jobs), desc="Compare ranks")
    try:
        for job in jobs:
            futures[executor.submit(_rank_job, job)] = job["suffix"]
        for fut in concurrent.futures.as_completed(futures):
            suffix = futures[fut]
            try:
                report = fut.result()
            except Exception as e:  # the executor itself failed (worker lost, ...)
                report = _failed_rank(suffix, f"{type(e).__name__}: {e}")
            results[suffix] = report
            if bar is not None:
                bar.update(1)
            label = suffix.lstrip("_")
            if report.error:
                log.error(f"[{label}] {report.error}")
            else:
                _print_report(report, label)
        finished = True
    finally:
        if bar is not None:
            bar.close()
        if not finished:   # interrupted: pairs not started yet are dropped
            for fut in futures:
                fut.cancel()
        if own_pool:
            executor.shutdown(wait=finished, cancel_futures=not finished)
    ordered = [results[p.suffix] for p in pairs]
    _merge_divergence(ordered, output_path, timestamp)
    failed = [r for r in ordered if r.error]
    if failed:
        names = ", ".join(r.suffix.lstrip("_") for r in failed)
        raise CompareFailed(f"compare failed for {len(failed)} of {len(ordered)} rank pairs ({names}); "
                            f"the other ranks' results are in {output_path}")
    _print_ends()
    return ordered


def compare_distributed_call(npu_dump_dir, bench_dump_dir, output_path, framework, mapping_options,
                             kwargs):
    """compare_distributed() of either framework: 1.2.1's keyword arguments (the name mappings
    allowed being `mapping_options`) plus executor, threads_per_rank, parallel_ranks, progress."""
    if kwargs.get("suffix"):
        raise MsprobeException("Argument 'suffix' is not supported for compare_distributed.")
    check_bool_options(is_print_compare_log=kwargs.get("is_print_compare_log", True))
    mapping = mapping_spec(**{option: kwargs.get(option) for option in mapping_options})
    return run_distributed(npu_dump_dir, bench_dump_dir, output_path, framework=framework,
                           stack_mode=kwargs.get("stack_mode", False),
                           auto_analyze=kwargs.get("auto_analyze", True),
                           fuzzy_match=kwargs.get("fuzzy_match", False), mapping=mapping,
                           executor=kwargs.get("executor"),
                           threads_per_rank=kwargs.get("threads_per_rank"),
                           parallel_ranks=kwargs.get("parallel_ranks"),
                           progress=kwargs.get("progress", True))
