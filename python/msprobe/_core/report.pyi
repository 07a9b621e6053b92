"""The self-contained HTML report"""

import msprobe._core


def render_dump_report(dump_path: str, title: str = '') -> str:
    """
    The statistics view of one dump (dump.json, a rank folder or a dump_path) as HTML text.
    """

def render_pair_report(npu_path: str, bench_path: str, title: str = '', framework: str = 'pytorch', name_mapper: msprobe._core.NameMapper | None = None) -> str:
    """
    Compares two dumps (compare engine, first-divergence suspects) and returns the report page.
    """

def render_check_report(details_csv: str, title: str = '') -> str:
    """The page of a run_ut or api_precision_compare details CSV."""

def free_benchmark_summary_of(path: str) -> str:
    """
    free_benchmark_summary.json of a dump_path (or the file itself); "" when there is none.
    """

def render_free_benchmark_report(summary_json: str, title: str = '') -> str:
    """The page of a free_benchmark run: flagged APIs ranked, with stacks."""

def check_report_path(details_csv: str) -> str:
    """Where the page of a details CSV goes: *_report_{stamp}.html beside it."""

def render_compare_report(parts: list, runs: list, title: str = '', generated_at: str = '') -> str:
    """
    A compare report from tables given as dicts {header, rows, fills, mode, rank, step, construct, stacks}; suspects are found by the C++ first-divergence analysis.
    """

def is_monitor_output(path: str) -> bool:
    """
    Whether path is a training monitor output (MONITOR_OUTPUT_DIR, or one rank folder of it).
    """

def render_monitor_report(path: str, title: str = '') -> str:
    """
    The page of a training monitor output: each statistic along the steps, anomalies marked.
    """

def is_grad_compare_output(path: str) -> bool:
    """
    Whether path is a GradComparator output (similarities.csv in it or in its rank folders).
    """

def render_grad_report(path: str, title: str = '') -> str:
    """
    The page of a GradComparator output: similarity along the steps, first divergence.
    """

def write_report_file(path: str, html: str) -> None: ...
