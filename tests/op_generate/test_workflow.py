"""The whole loop of docs/compare.md ("From a divergence to a reproduction") on two injected
faults of tests/compare/fault_net.py, run as a user would:

1. both runs dumped in statistics mode, compared: the faulty call is the first suspect, with its
   next-step files;
2. both runs re-dumped with those scoped tensor configs (nothing but that call), compared again:
   the float64 replay says "the API" or "its inputs";
3. op_generate on the new config_op.json (real data), the script run on CPU: its verdict line.

Case "api": one call of gelu computed with the tanh approximation in the NPU run (the API is
wrong). test_weights_differ: both runs take log(1 + logits/1000), an ill-conditioned log, and the
NPU run's weights carry 1e-3 relative noise: the loop ends at once at a source (the first weight
that differs), and the log, whose 1/|log x| explains its amplification, is not blamed.
"""
import json
import os
import subprocess
import sys

import pytest
from loop_helpers import compare, train

CASES = {
    "api": (["--fault", "gelu_tanh", "--fault-call", "2", "--noise", "1e-7"], [], "Functional.gelu.2.forward",
            "the API"),
}


def dump_json_of(config, cwd):
    with open(config) as f:
        return os.path.join(cwd, json.load(f)["dump_path"], "step0", "rank", "dump.json")


@pytest.mark.parametrize("case", sorted(CASES))
def test_loop_names_the_cause(tmp_path, case):
    npu_args, bench_args, suspect, verdict = CASES[case]
    root = str(tmp_path)
    # 1. statistics dumps, compare
    train(os.path.join(root, "bench"), "--task", "statistics", *bench_args)
    train(os.path.join(root, "npu"), "--task", "statistics", *npu_args)
    rank = os.path.join("step0", "rank", "dump.json")
    div, _, _ = compare(os.path.join(root, "npu", rank), os.path.join(root, "bench", rank), os.path.join(root, "out1"))
    first = div["suspects"][0]
    assert first["name"] == suspect
    assert "replay" not in first  # statistics dumps hold no tensors to replay
    steps = first["next_steps"]

    # 2. the scoped tensor re-dumps, compare again: the replay verdict
    train("unused", "--config", steps["redump_config_bench"], *bench_args, cwd=root)
    train("unused", "--config", steps["redump_config_npu"], *npu_args, cwd=root)
    npu_dump = dump_json_of(steps["redump_config_npu"], root)
    bench_dump = dump_json_of(steps["redump_config_bench"], root)
    call = suspect.rsplit(".", 1)[0]
    with open(npu_dump) as f:
        assert sorted(json.load(f)["data"]) == [call + ".backward", call + ".forward"]
    div2, log, page = compare(npu_dump, bench_dump, os.path.join(root, "out2"))
    assert div2["compare_mode"] == "tensor"
    again = div2["suspects"][0]
    assert again["name"] == suspect
    replay = again["replay"]
    assert replay["verdict"] == verdict, replay
    share = replay["replayed_output_error"] / replay["dumped_output_error"]
    if verdict == "the API":
        assert share <= 0.1 and replay["npu_api_error"] > 100 * replay["bench_api_error"]
    else:
        assert share >= 0.5 and replay["npu_api_error"] < 0.01 * replay["dumped_output_error"]
    assert f"Replay of {suspect} in float64 on each run's inputs: {verdict}:" in log
    assert f'"replay":["{verdict}","the float64 replays on each run' in page  # the report's data

    # 3. op_generate on the real data, the script on CPU
    config_op = again["next_steps"]["config_op"]
    with open(config_op) as f:
        assert json.load(f)["data_mode"] == "real_data"
    out = os.path.dirname(config_op)
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "op_generate", "-i", config_op,
                        "-o", out], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    run = subprocess.run([sys.executable, os.path.join(out, suspect + ".py")], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1].startswith("verdict: ")


def test_weights_differ_ends_at_a_source(tmp_path):
    root = str(tmp_path)
    train(os.path.join(root, "bench"), "--task", "statistics", "--log-near-one")
    train(os.path.join(root, "npu"), "--task", "statistics", "--log-near-one", "--noise", "1e-3")
    rank = os.path.join("step0", "rank", "dump.json")
    div, log, _ = compare(os.path.join(root, "npu", rank), os.path.join(root, "bench", rank), os.path.join(root, "out"))
    first = div["suspects"][0]
    assert first["kind"] == "source" and first["source_tensor"] == "parameter:embed.weight", first
    assert first["reason"].startswith("parameter `embed.weight` differs before any call (relative error ")
    assert "next_steps" not in first            # the answer itself: nothing to re-dump
    assert not [s for s in div["suspects"] if s["name"] == "Torch.log.0.forward"]
    assert "Next step for Functional.embedding.0.forward" not in log
