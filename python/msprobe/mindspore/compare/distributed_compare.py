"""ms_compare_distributed(npu_dump_dir, bench_dump_dir, output_path, **kwargs) of msprobe 1.2.1
(mindspore/compare/distributed_compare.py); kwargs as ms_compare() plus executor,
threads_per_rank and progress (see msprobe.pytorch.compare.distributed_compare)."""
from msprobe.core.compare import runner
from msprobe.core.errors import MsprobeException


def ms_compare_distributed(npu_dump_dir, bench_dump_dir, output_path, **kwargs):
    if kwargs.get("suffix"):
        raise MsprobeException("Argument 'suffix' is not supported for compare_distributed.")
    runner.check_bool_options(is_print_compare_log=kwargs.get("is_print_compare_log", True))
    mapping = runner.mapping_spec(kwargs.get("cell_mapping"), kwargs.get("api_mapping"),
                                    kwargs.get("data_mapping"), kwargs.get("layer_mapping"))
    return runner.run_distributed(npu_dump_dir, bench_dump_dir, output_path, framework="mindspore",
                                  stack_mode=kwargs.get("stack_mode", False),
                                  auto_analyze=kwargs.get("auto_analyze", True),
                                  fuzzy_match=kwargs.get("fuzzy_match", False), mapping=mapping,
                                  executor=kwargs.get("executor"),
                                  threads_per_rank=kwargs.get("threads_per_rank"),
                                  parallel_ranks=kwargs.get("parallel_ranks"),
                                  progress=kwargs.get("progress", True))


# Same function under the name msprobe.pytorch uses.
compare_distributed = ms_compare_distributed
