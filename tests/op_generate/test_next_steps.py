"""Every first-divergence suspect comes with its next step: compare writes, per suspect, a
config.json per run that re-dumps just that call in tensor mode and (for APIs op_generate can
replay) a config_op.json; divergence_*.json, the terminal and the HTML report point to them.
The files are used here as a user would: the re-dump configs drive two more training runs of
tests/compare/fault_net.py, those are compared, and op_generate runs on the new config_op.json."""
import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FAULT_NET = os.path.join(os.path.dirname(HERE), "compare", "fault_net.py")
FAULT = ["--fault", "gelu_tanh", "--fault-call", "2", "--noise", "1e-7"]


def train(*args, cwd=None):
    subprocess.run([sys.executable, FAULT_NET, *args], check=True, capture_output=True, timeout=300, cwd=cwd)


def compare(npu_json, bench_json, out):
    cfg = os.path.join(os.path.dirname(out), os.path.basename(out) + "_compare.json")
    with open(cfg, "w") as f:
        json.dump({"npu_path": npu_json, "bench_path": bench_json}, f)
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "compare", "-i", cfg, "-o", out],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    (div,) = glob.glob(os.path.join(out, "divergence_*.json"))
    (page,) = glob.glob(os.path.join(out, "compare_report_*.html"))
    with open(div) as f, open(page) as p:
        return json.load(f), r.stderr, p.read()


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
    assert ("Next step for Functional.gelu.2.forward: re-dump it in tensor mode with "
            f"{first['redump_config_npu']}") in log
    assert f"op_generate -i {first['config_op']}" in log
    assert first["config_op"] in page and first["redump_config_npu"] in page


def test_the_loop_with_the_written_files(statistics_compare, tmp_path):
    """Scoped tensor re-dump of both runs, compare again, op_generate on the new suspect."""
    root, div, _, _ = statistics_compare
    steps = div["suspects"][0]["next_steps"]
    train("unused", "--config", steps["redump_config_bench"], cwd=str(tmp_path))
    train("unused", "--config", steps["redump_config_npu"], *FAULT, cwd=str(tmp_path))
    with open(steps["redump_config_npu"]) as f:
        npu_dump = os.path.join(str(tmp_path), json.load(f)["dump_path"], "step0", "rank", "dump.json")
    with open(steps["redump_config_bench"]) as f:
        bench_dump = os.path.join(str(tmp_path), json.load(f)["dump_path"], "step0", "rank", "dump.json")
    with open(npu_dump) as f:
        assert sorted(json.load(f)["data"]) == ["Functional.gelu.2.backward", "Functional.gelu.2.forward"]
    div2, _, _ = compare(npu_dump, bench_dump, str(tmp_path / "out2"))
    assert div2["compare_mode"] == "tensor"
    first = div2["suspects"][0]
    assert first["name"] == "Functional.gelu.2.forward"
    with open(first["next_steps"]["config_op"]) as f:
        assert json.load(f)["data_mode"] == "real_data"
    out = os.path.dirname(first["next_steps"]["config_op"])
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "op_generate", "-i",
                        first["next_steps"]["config_op"], "-o", out], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    script = os.path.join(out, "Functional.gelu.2.forward.py")
    run = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "verdict: pass"  # torch's own gelu on both sides here
