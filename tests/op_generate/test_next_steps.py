"""Every first-divergence suspect comes with its next step: compare writes, per suspect, a
config.json per run that re-dumps just that call in tensor mode and (for APIs op_generate can
replay) a config_op.json; divergence_*.json, the terminal and the HTML report point to them.
test_workflow.py uses the files as a user would."""
import json
import os

import pytest
from loop_helpers import compare, train

FAULT = ["--fault", "gelu_tanh", "--fault-call", "2", "--noise", "1e-7"]


@pytest.fixture(scope="module")
def statistics_compare(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("next_steps"))
    train(os.path.join(root, "bench"), "--task", "statistics")
    train(os.path.join(root, "npu"), "--task", "statistics", *FAULT)
    rank = os.path.join("step0", "rank", "dump.json")
    div, log, page = compare(os.path.join(root, "npu", rank), os.path.join(root, "bench", rank),
                             os.path.join(root, "out"))
    return root, div, log, page


def test_every_suspect_carries_its_files(statistics_compare):
    root, div, log, page = statistics_compare
    suspects = div["suspects"]
    assert suspects and suspects[0]["name"] == "Functional.gelu.2.forward"
    for s in suspects:
        steps = s["next_steps"]
        for key in ("redump_config_npu", "redump_config_bench"):
            assert os.path.isfile(steps[key]), steps
            with open(steps[key]) as f:
                cfg = json.load(f)
            assert cfg["task"] == "tensor" and cfg["step"] == [0] and cfg["tensor"]["data_mode"] == ["all"]
            from msprobe import _core
            _core.load_config(steps[key])  # our config.json checks accept it
        assert os.path.dirname(steps["redump_config_npu"]) == os.path.dirname(steps["redump_config_bench"])
        if s["name"].startswith(("Functional.", "Tensor.", "Torch.")):
            with open(steps["config_op"]) as f:
                op = json.load(f)
            assert list(op) == ["dump_json_path", "api_name", "extract_api_path", "propagation", "data_mode",
                                "random_seed", "iter_times"]
            assert op["api_name"] == s["name"].rsplit(".", 1)[0] and op["propagation"] == s["direction"]
            assert op["data_mode"] == "random_data"  # a statistics dump
        else:
            assert steps["config_op"] is None
    first = suspects[0]["next_steps"]
    assert ("Next step for Functional.gelu.2.forward: re-dump it in tensor mode: train the NPU run with "
            f"{first['redump_config_npu']} and the bench run with {first['redump_config_bench']}, then: "
            f"msprobe -f pytorch compare -i {first['compare_json']} -o ") in log
    assert f"op_generate -i {first['config_op']}" in log
    assert first["config_op"] in page and first["redump_config_npu"] in page
