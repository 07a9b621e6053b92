"""compare(input_param, output_path, **kwargs) of msprobe 1.2.1 (pytorch/compare/pt_compare.py).

    from msprobe.pytorch import compare
    compare({"npu_json_path": ".../dump.json", "bench_json_path": ".../dump.json",
             "stack_json_path": ".../stack.json", "is_print_compare_log": True}, "./output",
            stack_mode=True, auto_analyze=True, fuzzy_match=False)

kwargs: stack_mode, auto_analyze, fuzzy_match (bools), data_mapping (a YAML path or a dict of NPU
row name -> bench row name), suffix (file-name suffix). Needs no torch: the work is in C++.
"""
from msprobe.core.compare import runner


def compare(input_param, output_path, **kwargs):
    stack_mode = kwargs.get("stack_mode", False)
    auto_analyze = kwargs.get("auto_analyze", True)
    fuzzy_match = kwargs.get("fuzzy_match", False)
    mapping = runner.mapping_spec(data_mapping=kwargs.get("data_mapping"))
    return runner.run_single(input_param, output_path, framework="pytorch", stack_mode=stack_mode,
                             auto_analyze=auto_analyze,
                             fuzzy_match=fuzzy_match, mapping=mapping, suffix=kwargs.get("suffix", ""),
                             progress=kwargs.get("progress", True), threads=kwargs.get("threads", 0))
