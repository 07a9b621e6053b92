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
from msprobe.core.errors import MsprobeException


def compare_distributed(npu_dump_dir, bench_dump_dir, output_path, **kwargs):
    if kwargs.get("suffix"):
        raise MsprobeException("Argument 'suffix' is not supported for compare_distributed.")
    runner.check_bool_options(is_print_compare_log=kwargs.get("is_print_compare_log", True))
    mapping = runner.mapping_spec(data_mapping=kwargs.get("data_mapping"))
    return runner.run_distributed(npu_dump_dir, bench_dump_dir, output_path, framework="pytorch",
                                  stack_mode=kwargs.get("stack_mode", False),
                                  auto_analyze=kwargs.get("auto_analyze", True),
                                  fuzzy_match=kwargs.get("fuzzy_match", False), mapping=mapping,
                                  executor=kwargs.get("executor"),
                                  threads_per_rank=kwargs.get("threads_per_rank"),
                                  parallel_ranks=kwargs.get("parallel_ranks"),
                                  progress=kwargs.get("progress", True))
