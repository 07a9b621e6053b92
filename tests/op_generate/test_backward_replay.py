"""compare's replay of backward suspects: the float64 replay of a backward entry must give the
gradients the dump recorded, in the dump's order (the autograd node's, not the arguments') and
shapes, for nodes that pass on several gradients or take several incoming ones (split); and a
fault that only the backward shows (tests/compare/fault_net.py --fault gelu_backward_tanh) is
named "the API" by the whole compare."""
import json
import os
import subprocess
import sys

import pytest
import torch
from loop_helpers import compare, train
from tolerances import kernel_rtol

from msprobe.pytorch.run_ut.suspect_replay import replay_float64

HERE = os.path.dirname(os.path.abspath(__file__))


def relative_error(ours, dumped):
    d = dumped.double()
    return float((ours.double() - d).norm() / max(float(d.norm()), 1e-30))


def test_replayed_gradients_are_the_dumped_ones_in_their_order(tmp_path):
    subprocess.run([sys.executable, os.path.join(HERE, "backward_ops.py"), str(tmp_path / "d")],
                   check=True, capture_output=True, timeout=300)
    rank = tmp_path / "d" / "step0" / "rank"
    tensors = str(rank / "dump_tensor_data")
    with open(rank / "dump.json") as f:
        data = json.load(f)["data"]
    seen = {}
    for name, record in data.items():
        if not name.endswith(".backward"):
            continue
        call = name[:-len(".backward")]
        api_type, rest = call.split(".", 1)
        api = rest.rsplit(".", 1)[0]
        forward = data[call + ".forward"]
        ours, again = replay_float64(name, api_type, api, forward, forward, tensors, tensors, record, record)
        dumped = [torch.load(os.path.join(tensors, o["data_name"]), weights_only=True)
                  for o in record["output"] if isinstance(o, dict) and "data_name" in o]
        assert [t.shape for t in ours] == [t.shape for t in dumped], name
        for o, d in zip(ours, dumped):
            assert relative_error(o, d) <= kernel_rtol(d.dtype), name
        assert all(torch.equal(o, p) for o, p in zip(ours, again))
        seen[api] = [tuple(t.shape) for t in ours]
    # linear on a matrix: the bias's gradient, then the transposed weight's (the input needs none)
    assert seen["linear"] == [(5,), (4, 5)]
    assert len(seen["mul"]) == 2 and len(seen["cat"]) == 2
    assert {"split", "topk", "layer_norm", "matmul", "tanh"} <= set(seen)


def test_a_backward_fault_is_the_api(tmp_path):
    root = str(tmp_path)
    train(os.path.join(root, "bench"), "--task", "tensor")
    train(os.path.join(root, "npu"), "--task", "tensor", "--fault", "gelu_backward_tanh", "--fault-call", "2")
    rank = os.path.join("step0", "rank", "dump.json")
    div, log, _ = compare(os.path.join(root, "npu", rank), os.path.join(root, "bench", rank),
                          os.path.join(root, "out"))
    first = div["suspects"][0]
    assert first["name"] == "Functional.gelu.2.backward"
    replay = first["replay"]
    assert replay["verdict"] == "the API", replay
    assert replay["replayed_output_error"] == pytest.approx(0.0, abs=1e-12)
    assert replay["npu_api_error"] > 100 * replay["bench_api_error"]
    assert "Replay of Functional.gelu.2.backward in float64 on each run's inputs: the API:" in log
