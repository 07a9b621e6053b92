"""ms_compare_distributed(npu_dump_dir, bench_dump_dir, output_path, **kwargs) of msprobe 1.2.1
(mindspore/compare/distributed_compare.py); kwargs as ms_compare() plus executor,
threads_per_rank and progress (see msprobe.pytorch.compare.distributed_compare)."""
from msprobe.core.compare import runner


def ms_compare_distributed(npu_dump_dir, bench_dump_dir, output_path, **kwargs):
    return runner.compare_distributed_call(
        npu_dump_dir, bench_dump_dir, output_path, "mindspore",
        ("cell_mapping", "api_mapping", "data_mapping", "layer_mapping"), kwargs)


# Same function under the name msprobe.pytorch uses.
compare_distributed = ms_compare_distributed
