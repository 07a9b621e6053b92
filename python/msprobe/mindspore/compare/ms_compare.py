"""ms_compare(input_param, output_path, **kwargs) of msprobe 1.2.1 (mindspore/compare/ms_compare.py).

    from msprobe.mindspore.compare.ms_compare import ms_compare
    ms_compare({"npu_json_path": ..., "bench_json_path": ..., "stack_json_path": ...}, "./output",
               cell_mapping=None, api_mapping=None, data_mapping=None, layer_mapping=None)

kwargs: stack_mode, auto_analyze, fuzzy_match (bools); cell_mapping, api_mapping, layer_mapping:
a YAML path, or True for the built-in rules only; data_mapping: a YAML path or a dict; suffix.
The bench may be a PyTorch dump (cross-framework compare). Needs no mindspore import.
"""
from msprobe.core.compare import runner


def ms_compare(input_param, output_path, **kwargs):
    mapping = runner.mapping_spec(kwargs.get("cell_mapping"), kwargs.get("api_mapping"),
                                    kwargs.get("data_mapping"), kwargs.get("layer_mapping"))
    return runner.run_single(input_param, output_path, framework="mindspore",
                             stack_mode=kwargs.get("stack_mode", False),
                             auto_analyze=kwargs.get("auto_analyze", True),
                             fuzzy_match=kwargs.get("fuzzy_match", False), mapping=mapping,
                             suffix=kwargs.get("suffix", ""), progress=kwargs.get("progress", True),
                             threads=kwargs.get("threads", 0))
