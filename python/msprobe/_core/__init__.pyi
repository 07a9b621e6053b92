"""msprobe C++ core"""

from collections.abc import Iterable, Mapping, Sequence

from msprobe._core import (
    opgen as opgen,
    reader as reader,
    report as report,
    runut as runut
)


class ConfigError(ValueError):
    """
    An invalid config.json value or argument; the message is one line naming the field and what is allowed.
    """

class MsprobeFileError(OSError, ValueError):
    """
    A file that cannot be used: missing, a directory, a link, wrong suffix, unreadable or malformed. The message names the path (and the line and column for malformed JSON).
    """

def tensor_stats(obj: object | None, want_crc: bool = False) -> dict:
    """
    Statistics of a CPU tensor as msprobe 1.2.1 writes them to dump.json: a dict with
    Max, Min, Mean, Norm (None, bool, int or float), Max_except_inf_nan /
    Min_except_inf_nan when Max / Min is inf or NaN, and md5 (8 hex digits of the
    CRC-32, bf16 taken as float32) when want_crc. One pass; the GIL is released.
    """

def crc32(data: object, start: int = 0) -> int:
    """
    CRC-32 of a bytes-like object, continuing from start (same as zlib.crc32).
    """

def encode_pt(tensor: object, archive_name: str, requires_grad: bool = False) -> bytes:
    """
    The bytes of a torch.save file holding `tensor` (contiguous copy, CPU), loadable with torch.load(weights_only=True). archive_name: the zip's top folder (torch uses the file stem).
    """

def encode_npy(tensor: object) -> bytes:
    """
    The bytes of a .npy file (format 1.0) holding `tensor`; bfloat16 is written as float32.
    """

class FreeBenchmarkConfig:
    """The free_benchmark section (read-only)."""

    @property
    def scope(self) -> list[str]: ...

    @property
    def list(self) -> list[str]: ...

    @property
    def fuzz_device(self) -> str: ...

    @property
    def pert_mode(self) -> str: ...

    @property
    def handler_type(self) -> str: ...

    @property
    def fuzz_level(self) -> str: ...

    @property
    def fuzz_stage(self) -> str: ...

    @property
    def if_preheat(self) -> bool: ...

    @property
    def ignored_note(self) -> str: ...

    @property
    def preheat_step(self) -> int: ...

    @property
    def max_sample(self) -> int: ...

class RunUtConfig:
    """The run_ut section (read-only)."""

    @property
    def white_list(self) -> list[str]: ...

    @property
    def black_list(self) -> list[str]: ...

    @property
    def error_data_path(self) -> str: ...

class GradProbeConfig:
    """The grad_probe section (read-only)."""

    @property
    def grad_level(self) -> str: ...

    @property
    def param_list(self) -> list[str]: ...

    @property
    def bounds(self) -> list[float]: ...

class DumpConfig:
    """
    A validated config.json (read-only). Lists are returned as new Python lists.
    """

    @property
    def task(self) -> str: ...

    @property
    def dump_path(self) -> str: ...

    @property
    def rank(self) -> list[int]:
        """Expanded, de-duplicated, sorted; [] = all ranks."""

    @property
    def step(self) -> list[int]:
        """Expanded, de-duplicated, sorted; [] = all steps."""

    @property
    def level(self) -> str: ...

    @property
    def enable_dataloader(self) -> bool: ...

    @property
    def async_dump(self) -> bool: ...

    @property
    def scope(self) -> list[str]: ...

    @property
    def list(self) -> list[str]: ...

    @property
    def data_mode(self) -> list[str]: ...

    @property
    def summary_mode(self) -> str: ...

    @property
    def summary_mode_list(self) -> list[str]:
        """MindSpore list form of summary_mode; [] when the string form was used."""

    @property
    def file_format(self) -> str: ...

    @property
    def overflow_nums(self) -> int: ...

    @property
    def check_mode(self) -> str: ...

    @property
    def free_benchmark(self) -> FreeBenchmarkConfig: ...

    @property
    def run_ut(self) -> RunUtConfig: ...

    @property
    def grad_probe(self) -> GradProbeConfig: ...

    def as_dict(self) -> dict:
        """Every field as a plain dict (sections as nested dicts)."""

    def __repr__(self) -> str: ...

def load_config(path: str, framework: str = 'pytorch', task: object | None = None, dump_path: object | None = None, level: object | None = None, step: object | None = None) -> DumpConfig:
    """
    Loads and validates a config.json. Arguments other than path/framework override the file (PrecisionDebugger constructor semantics). Raises ConfigError or MsprobeFileError.
    """

def parse_config_text(text: str, origin: str = 'config.json', framework: str = 'pytorch', task: object | None = None, dump_path: object | None = None, level: object | None = None, step: object | None = None) -> DumpConfig:
    """Like load_config, for JSON text; origin names it in messages."""

class DumpSession:
    def __init__(self, config: DumpConfig, framework: str = 'pytorch', writer_memory_mb: int = 512) -> None: ...

    def set_types(self, size_type: object | None, numpy_generic: object | None, fallback: object | None, to_host: object | None, internal_prefix: str) -> None: ...

    def start(self, rank: int = -1) -> bool: ...

    def stop(self) -> None: ...

    def step(self) -> None: ...

    def close(self) -> None: ...

    def set_overflow_reporting(self, report: object | None, library_prefixes: Sequence[str]) -> None: ...

    def attach_recorder(self, recorder: object) -> None:
        """
        Tensors read late go through this DeviceRecorder (msprobe.core.device_recorder).
        """

    def resolve(self) -> None:
        """
        Reads every deferred value now (before an in-place API changes its tensor).
        """

    def flush(self) -> None: ...

    def name_tensors(self, kind: str, pairs: list) -> None:
        """
        Names tensors for tensor_names.json: kind 'parameters' (the model's parameters and buffers) or 'inputs' (the model's forward inputs), each [(name, tensor), ...].
        """

    def api_pre(self, api: str, args: object | None, kwargs: object | None) -> int: ...

    def api_post(self, api: str, index: int, output: object | None) -> bool: ...

    def api_backward_begin(self, api: str, index: int) -> None: ...

    def api_backward(self, api: str, index: int, grad_outputs: object | None, grad_inputs: object | None) -> None: ...

    def module_pre(self, arg0: str, arg1: str, /) -> str: ...

    def module_post_forward(self, name: str, args: object | None, kwargs: object | None, output: object | None, params: object | None) -> bool: ...

    def module_post_backward(self, name: str, grad_input: object | None, grad_output: object | None) -> None: ...

    def param_grad(self, prefix: str, param: str, grad: object | None, names: Sequence[str]) -> None: ...

    def selects(self, name: str) -> bool:
        """
        Whether the scope / list filter selects the call `name` (free_benchmark: exact names, no range).
        """

    def enter_region(self, arg: str, /) -> None: ...

    def exit_region(self, arg: str, /) -> None: ...

    @property
    def needs_tensor_bytes(self) -> bool:
        """
        The task reads every byte of a tensor (tensor files or md5), not only its statistics.
        """

    @property
    def switch_on(self) -> bool: ...

    @property
    def ended(self) -> bool: ...

    @property
    def overflow_terminated(self) -> bool: ...

    @property
    def disabled(self) -> bool: ...

    @property
    def disabled_reason(self) -> str: ...

    def disable_after_error(self, reason: str, call: str = '') -> None:
        """
        An internal error of the probe: stop collecting and say so in the step's dump.json.
        """

    def count_unrecorded(self) -> None: ...

    @property
    def unrecorded_calls(self) -> int: ...

    @property
    def failed_call(self) -> str: ...

    @property
    def failed_step(self) -> int: ...

    @property
    def current_step(self) -> int: ...

    @property
    def entries_written(self) -> int: ...

    @property
    def rank_dir(self) -> str: ...

    def take_repair_messages(self) -> list[str]: ...

class RankDumpSummary:
    """What one step/rank folder of a dump holds."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def dir(self) -> str:
        """'step0/rank0'"""

    @property
    def task(self) -> str: ...

    @property
    def level(self) -> str: ...

    @property
    def entries(self) -> int: ...

    @property
    def forward(self) -> int: ...

    @property
    def backward(self) -> int: ...

    @property
    def other(self) -> int: ...

    @property
    def tensor_files(self) -> int: ...

    @property
    def incomplete(self) -> str:
        """'' or why the dump is incomplete"""

class OverflowFirst:
    """An overflowing entry and where it happened."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def dir(self) -> str: ...

    @property
    def step(self) -> int: ...

    @property
    def rank(self) -> object:
        """None when not distributed"""

    @property
    def entry(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def time(self) -> float: ...

    @property
    def source(self) -> str:
        """'file:line in function: text', or ''"""

class RankOverflowSummary:
    """overflow_check's findings in one step/rank."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def dir(self) -> str: ...

    @property
    def step(self) -> int: ...

    @property
    def rank(self) -> object:
        """None when not distributed"""

    @property
    def overflows(self) -> int: ...

    @property
    def culprits(self) -> int:
        """entries that made inf/NaN from finite inputs"""

    @property
    def limit_reached(self) -> bool: ...

    @property
    def first(self) -> OverflowFirst | None: ...

    @property
    def first_culprit(self) -> OverflowFirst | None: ...

class OverflowReport:
    """overflow_check's findings over a whole dump."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def rows(self) -> list[RankOverflowSummary]:
        """by step, then rank"""

    @property
    def earliest(self) -> OverflowFirst | None: ...

    @property
    def earliest_culprit(self) -> OverflowFirst | None: ...

def summarize_dump(dump_path: str) -> list[RankDumpSummary]: ...

def overflow_report(dump_path: str) -> OverflowReport:
    """
    The overflow_summary.json files of a dump: per step/rank rows and the earliest overflow and culprit across steps and ranks.
    """

class CosineResult:
    """1.2.1's cosine similarity of an output pair."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def value(self) -> object:
        """None for scalar or all-zero data"""

    @property
    def passed(self) -> bool:
        """value > 0.99, or the all-zero / scalar rules"""

    @property
    def message(self) -> str: ...

class FloatMetrics:
    """Every metric of a float output pair for one standard."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def numel(self) -> int: ...

    @property
    def new_standard(self) -> bool: ...

    @property
    def cosine(self) -> CosineResult: ...

    @property
    def standard(self) -> str: ...

    @property
    def max_abs_err(self) -> int | float | None: ...

    @property
    def hundredth(self) -> int | float | None: ...

    @property
    def thousandth(self) -> int | float | None: ...

    @property
    def ten_thousandth(self) -> int | float | None: ...

    @property
    def error_rate(self) -> int | float | None: ...

    @property
    def eb(self) -> int | float | None: ...

    @property
    def rmse(self) -> int | float | None: ...

    @property
    def small_value_err_ratio(self) -> int | float | None: ...

    @property
    def max_rel_err(self) -> int | float | None: ...

    @property
    def mean_rel_err(self) -> int | float | None: ...

    @property
    def inf_nan_error_ratio(self) -> int | float | None: ...

    @property
    def rel_err_ratio(self) -> int | float | None: ...

    @property
    def abs_err_ratio(self) -> int | float | None: ...

    @property
    def max_ulp_err(self) -> int | float | None: ...

    @property
    def mean_ulp_err(self) -> int | float | None: ...

    @property
    def ulp_err_proportion(self) -> int | float | None: ...

    @property
    def rel_err_thousandth(self) -> int | float | None: ...

    @property
    def max_abs_err_kind(self) -> str: ...

class OutputCompareResult:
    """One output compared as 1.2.1 run_ut does."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def message(self) -> str: ...

    @property
    def bench_dtype(self) -> str: ...

    @property
    def device_dtype(self) -> str: ...

    @property
    def shape(self) -> str: ...

    @property
    def cosine(self) -> int | float | None: ...

    @property
    def standard(self) -> str: ...

    @property
    def max_abs_err(self) -> int | float | None: ...

    @property
    def hundredth(self) -> int | float | None: ...

    @property
    def thousandth(self) -> int | float | None: ...

    @property
    def ten_thousandth(self) -> int | float | None: ...

    @property
    def error_rate(self) -> int | float | None: ...

    @property
    def eb(self) -> int | float | None: ...

    @property
    def rmse(self) -> int | float | None: ...

    @property
    def small_value_err_ratio(self) -> int | float | None: ...

    @property
    def max_rel_err(self) -> int | float | None: ...

    @property
    def mean_rel_err(self) -> int | float | None: ...

    @property
    def inf_nan_error_ratio(self) -> int | float | None: ...

    @property
    def rel_err_ratio(self) -> int | float | None: ...

    @property
    def abs_err_ratio(self) -> int | float | None: ...

    @property
    def max_ulp_err(self) -> int | float | None: ...

    @property
    def mean_ulp_err(self) -> int | float | None: ...

    @property
    def ulp_err_proportion(self) -> int | float | None: ...

    def detail_cells(self, precision: int = 14) -> list[str]:
        """
        The 22 details-CSV cells from 'Bench Dtype' to 'Message', as 1.2.1 writes them.
        """

class PrecisionCompareReport:
    """What api_precision_compare wrote."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def npu_rows(self) -> int:
        """data rows of the NPU file"""

    @property
    def detail_rows(self) -> int: ...

    @property
    def result_rows(self) -> int: ...

    @property
    def warnings(self) -> list[str]: ...

    @property
    def error(self) -> str:
        """
        '' or the line on which processing stopped early (the files hold the rows before it)
        """

def compare_output(api_name: str, bench: object, device: object) -> OutputCompareResult:
    """Compares one output tensor with its bench as 1.2.1 run_ut does."""

def float_metrics(bench: object, device: object, standard: str = 'benchmark') -> FloatMetrics:
    """
    Every metric of a float output pair for the given standard, in one pass.
    """

def cosine_similarity(bench: object, device: object) -> tuple:
    """(value or None, pass, message) as 1.2.1's cosine_sim."""

def binary_error_rate(bench: object, device: object) -> float:
    """#(bench != device) / N."""

def compare_dropout(bench: object, device: object) -> tuple:
    """(status, 1 or 0) by the dropout zero-count rule."""

def merge_output_statuses(statuses: Sequence[str]) -> str:
    """
    API-level status of several output statuses: any error wins, then Warning, else pass
    (SKIP ignored). Fixes 1.2.1, where a later Warning replaced an earlier error.
    """

def standard_for_api(api_name: str) -> str:
    """The precision standard key of an API short name (run_ut)."""

def standard_for_precision_row(api_name: str, device_dtype: str) -> str:
    """
    The standard api_precision_compare applies (non-float dtypes: binary_consistency).
    """

def standard_label(standard: str) -> str:
    """The Chinese algorithm label of a standard key."""

def format_fixed(value: float, precision: int = 14) -> str:
    """Python '{:.{p}f}'.format(value)."""

def format_float32(value: float) -> str:
    """str(numpy.float32(value))."""

def format_float16(value: float) -> str:
    """str(numpy.float16(value))."""

def api_precision_compare(npu_csv_path: str, gpu_csv_path: str, result_csv_path: str, details_csv_path: str, precision: int = 14) -> PrecisionCompareReport:
    """
    Runs api_precision_compare on two accuracy_checking_details CSVs and writes the result
    and details CSVs. Raises MsprobeFileError / ConfigError for unreadable or malformed input
    (nothing written).
    """

def check_input_csv_path(path: str, what: str) -> None:
    """
    Raises MsprobeFileError unless path is a readable regular *.csv file (no symlink).
    """

def check_input_file(path: str, what: str, suffix: str, expected: str = '') -> None:
    """
    Raises MsprobeFileError unless path is a readable regular *<suffix> file (no symlink).
    """

def prepare_output_dir(path: str) -> None:
    """
    Creates the output folder (mode 0750) if needed; refuses symlinks and read-only folders.
    """

def timestamp_now() -> str:
    """Local time as %Y%m%d%H%M%S."""

def kernel_dump_json(cfg: DumpConfig, kind: str, saved_data: str = '') -> str:
    """
    Text of kernel_kbyk_dump.json (kind 'kbyk'), kernel_graph_dump.json ('graph') or kernel_graph_overflow_check.json ('graph_overflow'), as 1.2.1 writes it.
    """

def write_text_file_atomic(path: str, text: str) -> None:
    """Writes a file through a temporary and a rename (mode 0640)."""

def kernel_statistic_categories(cfg: DumpConfig) -> list[str]: ...

def kernel_statistic_header(categories: Sequence[str]) -> str: ...

def convert_kernel_tensor_dump(dump_path: str, categories: Sequence[str], final_pass: bool = False) -> tuple:
    """
    Turns the .npy files of a MindSpore tensor dump into statistic.csv rows; returns (files converted, ['path: problem', ...]).
    """

def filter_kernel_overflow_dump(dump_path: str, final_pass: bool = False) -> tuple:
    """
    overflow_check on a CPU: removes the tensor files of kernels without inf/NaN; returns (files removed, ['path: problem', ...]).
    """

class NameMapper:
    """Name mapping of a compare (-cm/-am/-dm/-lm); the default maps nothing."""

    def __init__(self) -> None: ...

class CompareTable:
    """Result table of compare_dumps, held in C++."""

    @property
    def mode(self) -> str: ...

    @property
    def stack_mode(self) -> bool: ...

    @property
    def header(self) -> list[str]: ...

    @property
    def notes(self) -> list[str]: ...

    @property
    def num_rows(self) -> int: ...

    @property
    def fills(self) -> list[str]: ...

    def rows(self) -> list: ...

    def written_rows(self) -> list: ...

    def row(self, i: int) -> list: ...

    def column(self, name: str) -> int: ...

def compare_dumps(npu_json: str, bench_json: str, framework: str = 'pytorch', stack_mode: bool = False, stack_path: str = '', fuzzy_match: bool = False, threads: int = 0, name_mapper: NameMapper | None = None, progress: object | None = None) -> CompareTable:
    """
    Compares two dumps as msprobe 1.2.1 does; returns the CompareTable. Raises ConfigError / MsprobeFileError (one line) on unusable input.
    """

class UserApiMapping:
    """One entry of a user -am table."""

    def __init__(self) -> None: ...

    @property
    def ms_api(self) -> str: ...

    @ms_api.setter
    def ms_api(self, arg: str, /) -> None: ...

    @property
    def pt_api(self) -> str: ...

    @pt_api.setter
    def pt_api(self, arg: str, /) -> None: ...

    @property
    def ms_args(self) -> list[str]: ...

    @ms_args.setter
    def ms_args(self, arg: Sequence[str], /) -> None: ...

    @property
    def pt_args(self) -> list[str]: ...

    @pt_args.setter
    def pt_args(self, arg: Sequence[str], /) -> None: ...

    @property
    def ms_output(self) -> list[str]: ...

    @ms_output.setter
    def ms_output(self, arg: Sequence[str], /) -> None: ...

    @property
    def pt_output(self) -> list[str]: ...

    @pt_output.setter
    def pt_output(self, arg: Sequence[str], /) -> None: ...

    @property
    def ms_parameters(self) -> list[str]: ...

    @ms_parameters.setter
    def ms_parameters(self, arg: Sequence[str], /) -> None: ...

    @property
    def pt_parameters(self) -> list[str]: ...

    @pt_parameters.setter
    def pt_parameters(self, arg: Sequence[str], /) -> None: ...

    @property
    def ms_parameters_grad(self) -> list[str]: ...

    @ms_parameters_grad.setter
    def ms_parameters_grad(self, arg: Sequence[str], /) -> None: ...

    @property
    def pt_parameters_grad(self) -> list[str]: ...

    @pt_parameters_grad.setter
    def pt_parameters_grad(self, arg: Sequence[str], /) -> None: ...

class ApiMapper(NameMapper):
    """-am: MindSpore API names to PyTorch's."""

    def __init__(self, builtin: Mapping[str, str], user: Sequence[UserApiMapping]) -> None: ...

    def prepare(self, npu_rows: Sequence[str], bench_rows: Sequence[str]) -> None: ...

    def npu_key(self, row: str) -> str: ...

    @property
    def skipped_entries(self) -> list[str]: ...

class CellMapper(NameMapper):
    """-cm: MindSpore cells to PyTorch modules."""

    def __init__(self, table: Mapping[str, str]) -> None: ...

    def prepare(self, npu_rows: Sequence[str], bench_rows: Sequence[str]) -> None: ...

    def npu_key(self, row: str) -> str: ...

class DataMapper(NameMapper):
    """-dm: explicit (npu row, bench row) pairs."""

    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None: ...

    def data_mapping(self) -> list[tuple[str, str]]: ...

class LayerMapper(NameMapper):
    """-lm: row pairs from both dumps' layer trees."""

    def __init__(self, npu_dump_json: str, bench_dump_json: str, table: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> None: ...

    def data_mapping(self) -> list[tuple[str, str]]: ...

    def entry_mapping(self) -> list[tuple[str, str]]: ...

class AdvisorResult:
    """What the advisor found in a compare table (advisor_{ts}.txt)."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def found(self) -> bool:
        """a failing row exists"""

    @property
    def line(self) -> str:
        """its row index as 1.2.1 prints it, or 'NA'"""

    @property
    def suspect_node(self) -> str: ...

    @property
    def message(self) -> str: ...

    @property
    def warnings(self) -> list[str]: ...

    @property
    def first_divergence(self) -> str: ...

    @property
    def lines(self) -> list[str]:
        """the advisor file's lines"""

class CompareJobReport:
    """One compare job's outputs (paths are '' when a file was not written)."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def suffix(self) -> str: ...

    @suffix.setter
    def suffix(self, arg: str, /) -> None: ...

    @property
    def error(self) -> str:
        """'' or why this rank failed (multi-rank compare)"""

    @error.setter
    def error(self, arg: str, /) -> None: ...

    @property
    def xlsx_path(self) -> str: ...

    @property
    def advisor_path(self) -> str: ...

    @property
    def data_mapping_path(self) -> str: ...

    @property
    def divergence_path(self) -> str: ...

    @property
    def report_path(self) -> str: ...

    @property
    def first_divergence(self) -> str: ...

    @property
    def next_steps(self) -> str:
        """the first suspect's next step, one line ('' when none)"""

    @property
    def redump_check(self) -> str:
        """
        the re-dump's verdict on the suspect it was made for, one line ('' when none)
        """

    @property
    def replay(self) -> str:
        """the first suspect's replay verdict, one line ('' when not replayed)"""

    @property
    def suspects(self) -> int: ...

    @property
    def rows(self) -> int: ...

    @property
    def red_rows(self) -> int: ...

    @property
    def yellow_rows(self) -> int: ...

    @property
    def stack_mode(self) -> bool: ...

    @property
    def warnings(self) -> list[str]: ...

    @property
    def advisor(self) -> AdvisorResult: ...

class CompareJson:
    """compare.json of `msprobe compare -i`, validated."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def npu_path(self) -> str: ...

    @property
    def bench_path(self) -> str: ...

    @property
    def stack_path(self) -> object:
        """
        None when absent (stack.json is then looked for next to the NPU dump.json)
        """

    @property
    def is_print_compare_log(self) -> bool: ...

    @property
    def rank_id(self) -> bool:
        """MindSpore graph-mode (L2) rank_id / step_id lists"""

    @property
    def suspect(self) -> str:
        """the suspect a scoped re-dump was made for ('' when none)"""

    @property
    def suspect_first_source(self) -> str: ...

    @property
    def suspect_noise(self) -> object:
        """
        (typical_increment, base, spread) of the compare that proposed the re-dump, or None
        """

class RankPair:
    """One rank pair of a step-folder compare."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def npu_rank(self) -> str: ...

    @property
    def bench_rank(self) -> str: ...

    @property
    def npu_dump_json(self) -> str: ...

    @property
    def bench_dump_json(self) -> str: ...

    @property
    def suffix(self) -> str: ...

    @property
    def error(self) -> str:
        """'' or why this pair cannot run (a missing dump.json)"""

class MergeReport:
    """merge_result's workbook and messages."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def warnings(self) -> list[str]: ...

    @property
    def infos(self) -> list[str]: ...

def compare_job(framework: str, npu_json: str, bench_json: str, output_dir: str, suffix: str = '', stack_json: object | None = None, stack_mode: bool = False, auto_analyze: bool = True, fuzzy_match: bool = False, timestamp: str = '', threads: int = 0, progress: object | None = None, name_mapper: NameMapper | None = None, save_data_mapping: bool = False, html_report: bool = True, replay: object | None = None, redump_suspect: str = '', redump_first_source: str = '', redump_noise: object | None = None) -> CompareJobReport:
    """
    Compares one rank and writes its xlsx (and advisor), divergence json and HTML report; returns the report.
    """

def merge_rank_divergence(rank_files: Sequence[str], out_path: str) -> str:
    """
    Ranks the suspects of several ranks' divergence files together into out_path; returns the first suspect's line.
    """

def load_compare_json(path: str) -> CompareJson: ...

def pair_rank_dirs(npu_step_dir: str, bench_step_dir: str) -> list[RankPair]: ...

def path_kind(path: str) -> str: ...

def merge_results(input_dir: str, output_dir: str, api: Sequence[str], compare_index: Sequence[str], empty_config: bool = False, timestamp: str = '') -> MergeReport: ...

def write_compare_xlsx_rows(header: Sequence[str], rows: Iterable, fills: Sequence[str], path: str) -> None: ...

def read_xlsx(path: str, first_only: bool = False) -> list: ...

def mapping_yaml_text(pairs: Sequence[tuple[str, str]]) -> str:
    """
    The text compare -lm leaves in data_mapping_{ts}.yaml (PyYAML's yaml.dump of the pairs).
    """

def repair_dump(path: str, quick: bool = False, rank_folder: str = '') -> list[tuple[str, str, str]]:
    """
    Repairs the dump files under path; returns (path, action, message) for each file that was not intact (action: trimmed, rewritten, removed or failed).
    """

def device_stats_number_dtype(dtype: str) -> str:
    """
    The type ('float32' or 'float64') in which the statistics of a tensor of this dtype
    are handed to the core (see external_stats.h).
    """

def external_tensor_stats(dtype: str, shape: Sequence[int], numbers: bytes, rescaled: object | None = None) -> dict:
    """
    tensor_stats()'s dict for statistics computed elsewhere, given as the numbers of
    external_stats.h; need_extremes says whether the four extremes are still wanted,
    rescale (a scale or None) whether the (mean, norm) of the values divided by it
    should be passed as `rescaled`.
    """

class FuzzVerdict:
    """free_benchmark's verdict on one output (ratio verdict)."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def consistent(self) -> bool: ...

    @property
    def symbol_flipping(self) -> bool: ...

    @property
    def ratio(self) -> float: ...

class FuzzBenchmarkResult:
    """free_benchmark's comparison of one output with its CPU result."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def consistent(self) -> bool: ...

    @property
    def abs_err(self) -> float: ...

    @property
    def rel_err(self) -> float: ...

    @property
    def err_balance(self) -> float: ...

class FreeBenchmarkChecker:
    """
    The judge of one free_benchmark run: thresholds, preheat, free_benchmark.csv and free_benchmark_summary.json in the config's dump_path.
    """

    def __init__(self, config: DumpConfig, framework: str, library_prefixes: Sequence[str]) -> None: ...

    def check_tensor(self, call: str, step: int, rank: int, output_index: int, original: object, perturbed: object) -> FuzzVerdict:
        """
        The ratio verdict of one output held in host memory; writes the row when it fails.
        """

    def check_stats(self, call: str, step: int, rank: int, output_index: int, original_dtype: str, shape: Sequence[int], perturbed_dtype: str, numel: int, min_product: float, min_ratio: float, max_ratio: float) -> FuzzVerdict:
        """The ratio verdict from reductions computed on the device."""

    def check_ms_norms(self, call: str, step: int, rank: int, items: Sequence[tuple[int, str, Sequence[int]]], numbers: bytes) -> list[FuzzVerdict]:
        """
        MindSpore: the verdicts of a call's outputs from the extremes computed on their device (MsNorms, fuzz_compare.h); writes a row per inconsistent output.
        """

    def check_ms_tensors(self, call: str, step: int, rank: int, items: Sequence[tuple[int, object, object]]) -> list[FuzzVerdict]:
        """
        MindSpore, host tensors: the verdicts of a call's outputs (ms_norms, fuzz_compare.h); writes a row per inconsistent output.
        """

    def check_number(self, call: str, step: int, rank: int, output_index: int, original: float, perturbed: float, integer: bool) -> FuzzVerdict:
        """A Python number of an output sequence; writes the row when it differs."""

    def floor(self, perturbed_dtype: str) -> float:
        """The magnitude below which values count as tiny in the ratio."""

    def benchmark_tensor(self, original: object, cpu: object) -> FuzzBenchmarkResult: ...

    def add_benchmark_row(self, call: str, step: int, rank: int, original: object | None, worst: FuzzBenchmarkResult | None) -> None: ...

    def threshold(self, call: str, dtype: str) -> float: ...

    def preheat_counting(self, call: str, step: int) -> bool:
        """Step 0 of the preheat: counts the call; True means: do not compare."""

    def preheat_take_sample(self, call: str, step: int) -> bool: ...

    def preheat_record(self, call: str, dtype: str, max_ratio: float, cpu_consistent: bool) -> None: ...

    def preheat_calls_per_step(self, call: str) -> int: ...

    def count_checked(self) -> None: ...

    @property
    def checked_calls(self) -> int: ...

    @property
    def flagged_outputs(self) -> int: ...

    def end_line(self) -> str: ...

    def write_summary(self) -> None:
        """Writes free_benchmark_summary.json (atomically)."""

class GradStepFiles:
    """What one grad_probe step wrote (read-only)."""

    @property
    def csv_path(self) -> str: ...

    @property
    def rows(self) -> int: ...

    @property
    def direction_files(self) -> int: ...

class GradStepWriter:
    """
    grad_probe's files of one rank: grad_summary_{step}.csv and step{step}/*.npy.
    """

    def __init__(self, config: GradProbeConfig, dump_path: str, rank: int) -> None: ...

    def header(self) -> list[str]:
        """The csv header row."""

    @property
    def rank_dir(self) -> str: ...

    def write_step(self, step: int, names: Sequence[str], grads: Sequence) -> GradStepFiles:
        """
        Summarises the host tensors `grads` (one pass each) and writes the step's files.
        """

class GradSimilarities:
    """Direction agreement per name and step (read-only)."""

    @property
    def steps(self) -> list[int]: ...

    @property
    def names(self) -> list[str]:
        """Parameters, then "summary"."""

    @property
    def values(self) -> list[list[float]]:
        """values[name][step]."""

class GradDivergenceParam:
    """A parameter whose directions part (read-only)."""

    @property
    def name(self) -> str: ...

    @property
    def similarity(self) -> float: ...

    @property
    def previous(self) -> float: ...

class GradDivergence:
    """The first step where two runs' directions part (read-only)."""

    @property
    def found(self) -> bool: ...

    @property
    def step(self) -> int: ...

    @property
    def params(self) -> list[GradDivergenceParam]: ...

class GradCompareOutput:
    """One rank's GradComparator result (read-only)."""

    @property
    def similarities(self) -> GradSimilarities: ...

    @property
    def divergence(self) -> GradDivergence: ...

    @property
    def csv_path(self) -> str: ...

    @property
    def json_path(self) -> str: ...

    @property
    def line(self) -> str: ...

def grad_matched_dirs(dir1: str, dir2: str, prefix: str) -> list[int]:
    """N of the folders {prefix}N in both dir1 and dir2, ascending."""

def grad_compare(rank_dir1: str, rank_dir2: str, out_dir: str) -> GradCompareOutput:
    """
    Writes out_dir/similarities.csv and grad_divergence.json for two rank folders.
    """

class MonitorAlertRule:
    """An alert rule of the monitor config."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def rule_name(self) -> str: ...

    @property
    def threshold(self) -> float: ...

class MonitorTarget:
    """A target module and its input/output specs."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def module(self) -> str: ...

    @property
    def specs(self) -> list[tuple[str, str]]: ...

class MonitorConfig:
    """The training monitor's config.json, checked (read-only)."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def targets(self) -> list[MonitorTarget]: ...

    @property
    def print_struct(self) -> bool: ...

    @property
    def module_ranks(self) -> list[int]: ...

    @property
    def xy_distribution(self) -> bool: ...

    @property
    def all_xy(self) -> bool: ...

    @property
    def forward_only(self) -> bool: ...

    @property
    def backward_only(self) -> bool: ...

    @property
    def wg_distribution(self) -> bool: ...

    @property
    def mv_distribution(self) -> bool: ...

    @property
    def param_distribution(self) -> bool: ...

    @property
    def ur_distribution(self) -> bool: ...

    @property
    def mg_direction(self) -> bool: ...

    @property
    def cc_enable(self) -> bool: ...

    @property
    def cc_codeline(self) -> list[str]: ...

    @property
    def cc_pre_hook(self) -> bool: ...

    @property
    def cc_log_only(self) -> bool: ...

    @property
    def ops(self) -> list[str]: ...

    @property
    def eps(self) -> float: ...

    @property
    def ndigits(self) -> int: ...

    @property
    def alert_rules(self) -> list[MonitorAlertRule]: ...

    @property
    def alert_dump(self) -> bool: ...

    @property
    def format(self) -> str: ...

    @property
    def step_interval(self) -> int: ...

    @property
    def start_step(self) -> int: ...

    @property
    def collect_times(self) -> int: ...

    @property
    def step_count_per_record(self) -> int: ...

    @property
    def squash_name(self) -> bool: ...

    @property
    def switch(self) -> bool: ...

    @property
    def append_output(self) -> list[str]: ...

    @property
    def warnings(self) -> list[str]: ...

class MonitorStats:
    """The monitor's statistics of one tensor."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def min(self) -> float: ...

    @property
    def max(self) -> float: ...

    @property
    def norm(self) -> float: ...

    @property
    def zeros(self) -> float: ...

    @property
    def nans(self) -> float: ...

    @property
    def mean(self) -> float: ...

    @property
    def id(self) -> float: ...

class MonitorAlert:
    """A value that broke an alert rule."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def tag(self) -> str: ...

    @property
    def op(self) -> str: ...

    @property
    def step(self) -> int: ...

    @property
    def value(self) -> float: ...

    @property
    def baseline(self) -> float: ...

    @property
    def rule(self) -> str: ...

    @property
    def call_id(self) -> int: ...

    @property
    def threshold(self) -> float: ...

    @property
    def message(self) -> str: ...

    @property
    def line(self) -> str: ...

class MonitorFlush:
    """What one flush of the monitor wrote and found."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def prefix(self) -> str: ...

    @property
    def step(self) -> int: ...

    @property
    def csv_path(self) -> str: ...

    @property
    def tags(self) -> list[str]: ...

    @property
    def values(self) -> list[list[float]]:
        """values[i][j]: tags[i], ops[j]"""

    @property
    def alerts(self) -> list[MonitorAlert]: ...

class AnomalyEntry:
    """An alert as anomaly.json keeps it."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def rank(self) -> int: ...

    @property
    def step(self) -> int: ...

    @property
    def micro_step(self) -> int: ...

    @property
    def pp_stage(self) -> int: ...

    @property
    def vpp_stage(self) -> int: ...

    @property
    def call_id(self) -> int: ...

    @property
    def tag_name(self) -> str: ...

    @property
    def message(self) -> str: ...

    @property
    def group_mates(self) -> list[int]: ...

class AnomalyFile:
    """A rank's anomaly.json."""

    def __init__(self, dir: str, rank: int, pp_stage: int, group_mates: Sequence[int]) -> None: ...

    def write(self, alerts: Sequence[MonitorAlert]) -> None:
        """Adds the alerts and rewrites the file."""

    @property
    def path(self) -> str: ...

def read_anomalies(data_path: str) -> list[AnomalyEntry]:
    """The entries of every rank folder's anomaly.json."""

def earliest_anomalies(entries: Sequence[AnomalyEntry], top_k: int, steps: Sequence[int]) -> list[AnomalyEntry]:
    """
    The top_k earliest entries in 1.2.1's order, of the given steps (all when empty).
    """

def write_anomaly_analysis(out_dir: str, entries: Sequence[AnomalyEntry]) -> str:
    """Writes out_dir/anomaly_analyse.json."""

class MonitorSeries:
    """One name's values along steps."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def steps(self) -> list[int]: ...

    @property
    def values(self) -> list[list[float]]:
        """values[i][j]: steps[i], ops[j]"""

class MonitorCsvSeries:
    """A data type of a rank's monitor csv files."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def data_type(self) -> str: ...

    @property
    def ops(self) -> list[str]: ...

    @property
    def series(self) -> list[MonitorSeries]: ...

def monitor_data_types() -> list[str]:
    """The monitor's csv data types (file prefixes)."""

def read_monitor_csv_series(rank_dir: str, data_type: str) -> MonitorCsvSeries:
    """Every {data_type}_{a}-{b}.csv of rank_dir as series along steps."""

def write_module_struct(path: str, modules: Sequence[tuple[str, Sequence[tuple[str, Sequence[tuple[str, str]]]]]]) -> None:
    """
    Writes print_struct's module_struct.json: [(module, [(part, [(key, text)])])].
    """

def load_monitor_config(path: str) -> MonitorConfig:
    """Reads and checks a monitor config.json; ConfigError names the field."""

def monitor_stats(tensor: object, eps: float = 1e-08) -> MonitorStats:
    """The monitor's statistics of a host tensor, in one pass."""

def parallel_workers() -> int:
    """
    Threads beside the caller that read a large batch of tensors (MSPROBE_STATS_THREADS caps the threads in all).
    """

def monitor_csv_number(value: float, ndigits: int) -> str:
    """A value as 1.2.1's monitor csv writes it (rounded as numpy, repr)."""

class MonitorWriter:
    """The monitor's statistics and files of one rank."""

    def __init__(self, dir: str, ops: Sequence[str], eps: float, ndigits: int, step_count_per_record: int, rules: Sequence[MonitorAlertRule], csv: bool, rank: int = 0) -> None: ...

    def add(self, prefix: str, tags: Sequence[str], tensors: Sequence, group: str = '') -> None:
        """
        Summarises host tensors (None: not a tensor) for the next flush of `prefix`; the rows of one `group` are flushed together.
        """

    def add_sign_matches(self, prefix: str, tags: Sequence[str], grads: Sequence, exp_avgs: Sequence) -> None:
        """
        mg_direction: the statistics of each gradient's sign matches with its exp_avg (None: 1.0).
        """

    def flush(self, prefix: str, step: int) -> MonitorFlush:
        """Writes the rows of `prefix` as `step` and checks the alert rules."""

    def flush_step(self, prefixes: Sequence[str], step: int) -> list[MonitorFlush]:
        """
        The end of a monitored step: the background flush of begin_flush_step waited for, each prefix flushed in order, then end_step; the flushes that had rows.
        """

    def begin_flush_step(self, prefixes: Sequence[str], step: int) -> None:
        """
        Takes the rows of each prefix now and writes them as `step` on another thread (while the optimizer steps); flush_step returns the result.
        """

    def pending(self, prefix: str) -> MonitorFlush:
        """The rows of `prefix` not yet flushed (nothing written)."""

    def end_step(self) -> None:
        """Call ids start again from 0."""

    def clear(self) -> None:
        """Drops every row not flushed (once a background flush is written)."""

class MonitorHeatmap:
    """A heat map of histograms along steps (ur_distribution)."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def tag(self) -> str: ...

    @property
    def counts(self) -> list[list[float]]:
        """counts[bin][column], a column per monitored step"""

HEATMAP_BINS: int = 30

class AdamHeatmaps:
    """Adam's update and ratio histograms along steps (ur_distribution)."""

    def __init__(self) -> None: ...

    def add(self, update_tags: Sequence[str], ratio_tags: Sequence[str], exp_avgs: Sequence, exp_avg_sqs: Sequence, steps: object, beta1: float, beta2: float, eps: float) -> None:
        """
        Histograms Adam's bias-corrected update and ratio of each parameter (steps: a tensor of their optimizer step counts) as the next column of its heat maps.
        """

    def take(self) -> list[MonitorHeatmap]:
        """The heat maps that got a column since the last take."""

    def clear(self) -> None:
        """Forgets every heat map."""

class CollectiveRows:
    """A step's aggregated statistics of the collectives."""

    def __init__(self) -> None: ...

    def __getstate__(self) -> tuple: ...

    def __setstate__(self, arg: tuple, /) -> None: ...

    def __eq__(self, arg: object, /) -> bool: ...

    def __repr__(self) -> str: ...

    @property
    def tags(self) -> list[str]: ...

    @property
    def values(self) -> list[list[float]]:
        """values[i][j]: tags[i], ops[j]"""

class CollectiveStats:
    """
    cc_distribution: statistics of the collectives' tensors, aggregated over a step.
    """

    def __init__(self, ops: Sequence[str], eps: float) -> None: ...

    def add(self, tags: Sequence[str], parts: Sequence) -> None:
        """
        One call: tags[i] summarises the host tensors parts[i] (a list argument: all of them as one).
        """

    def take(self) -> CollectiveRows:
        """The aggregates since the last take, forgotten."""

    def move_into(self, writer: MonitorWriter, prefix: str) -> None:
        """
        The aggregates since the last take added to the writer's rows of `prefix`.
        """

    def clear(self) -> None:
        """Forgets the calls not taken yet."""
