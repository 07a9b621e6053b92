"""compare_distributed(npu_dump_dir, bench_dump_dir, output_path, **kwargs) of msprobe 1.2.1
(pytorch/compare/distributed_compare.py): every rank{N} folder of two step folders, paired by
sorted name; one compare_result_rank{N}-rank{M}_{ts}.xlsx per pair.

kwargs as compare() (stack_mode, auto_analyze, fuzzy_match, data_mapping, is_print_compare_log),
plus:
  executor          any concurrent.futures.Executor to run the rank pairs on (a
                    ProcessPoolExecutor, a dask.distributed Client's get_executor(), ...);
                    default: a thread pool of this process with bounded concurrency;
  parallel_ranks    rank pairs at a time on the default thread pool (default max(1, (cpus+1)//4));
  threads_per_rank  C++ threads of each rank's compare (default: the machine's share);
  progress          show a progress bar over ranks (default True).
A rank that fails does not stop the others; CompareFailed is raised at the end naming the
failed pairs.
"""
from msprobe.core.compare import runner


def compare_distributed(npu_dump_dir, bench_dump_dir, output_path, **kwargs):
    return runner.compare_distributed_call(npu_dump_dir, bench_dump_dir, output_path, "pytorch",
                                           ("data_mapping",), kwargs)
