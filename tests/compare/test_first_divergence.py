"""First divergence on injected faults: two runs of a small decoder (tests/compare/fault_net.py and
fault_net_ms.py) dumped by our probe, the "npu" run with one call of an op computed differently and,
where the mode allows, every weight carrying ulp-level noise (what two devices always show). The
compare must name that call first in divergence_{ts}.json, the advisor and the terminal, in every
mode, and name nothing when there is no fault."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "mindspore"))
from ms_helpers import run_python as run_ms_python  # noqa: E402


def dump(root, name, task, level, *args, mindspore=False):
    """Dumps one run (cached per name within the module); returns its rank folder."""
    path = os.path.join(root, name)
    if not os.path.exists(path):
        script = os.path.join(HERE, "fault_net_ms.py" if mindspore else "fault_net.py")
        argv = ["--task", task, "--level", level, *args, path]
        if mindspore:
            run_ms_python(script, *argv)
        else:
            subprocess.run([sys.executable, script, *argv], check=True, capture_output=True, timeout=300)
    return os.path.join(path, "step0", "rank")


def compare(tmp_path, npu_rank_dir, bench_rank_dir, framework="pytorch"):
    cfg = tmp_path / "compare.json"
    cfg.write_text(json.dumps({"npu_path": os.path.join(npu_rank_dir, "dump.json"),
                               "bench_path": os.path.join(bench_rank_dir, "dump.json")}))
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", framework, "compare", "-i", str(cfg),
                        "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    (div,) = glob.glob(str(out / "divergence_*.json"))
    (advisor,) = glob.glob(str(out / "advisor_*.txt"))
    (page,) = glob.glob(str(out / "compare_report_*.html"))
    assert os.path.getsize(page) > 0
    return json.load(open(div)), open(advisor).read(), r.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fault_runs"))


PYTORCH_CASES = [
    # (task, level, npu args, expected first suspect, expected confidence)
    ("statistics", "L1", ["--fault", "gelu_tanh", "--fault-call", "2", "--noise", "1e-7"],
     "Functional.gelu.2.forward", None),
    ("tensor", "L1", ["--fault", "gelu_tanh", "--fault-call", "2", "--noise", "1e-7"],
     "Functional.gelu.2.forward", "high"),
    # md5 can only say "first output that differs while its inputs are bit-identical": no noise.
    ("md5", "L1", ["--fault", "gelu_tanh", "--fault-call", "2"], "Functional.gelu.2.forward", "high"),
    ("statistics", "mix", ["--fault", "layernorm_eps", "--fault-call", "1", "--noise", "1e-7"],
     "Functional.layer_norm.1.forward", "high"),
    ("tensor", "mix", ["--fault", "log_neg"], "Torch.log.0.forward", "high"),
]


@pytest.mark.parametrize("task,level,args,expected,confidence", PYTORCH_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2][1]}" for c in PYTORCH_CASES])
def test_pytorch_fault_named_first(tmp_path, runs, task, level, args, expected, confidence):
    bench = dump(runs, f"bench_{task}_{level}", task, level)
    npu = dump(runs, f"npu_{task}_{level}_{args[1]}", task, level, *args)
    div, advisor, stderr = compare(tmp_path, npu, bench)
    first = div["suspects"][0]
    assert first["name"] == expected, [s["name"] for s in div["suspects"]]
    assert div["compare_mode"] == task
    if confidence:
        assert first["confidence"] == confidence
    assert f"First Divergence: {expected}: " in advisor
    assert re.search(rf"WARNING: First divergence: {re.escape(expected)} at step 0: ", stderr)
    # Where the call was made: the model's line in fault_net.py.
    assert any("fault_net.py" in line for line in first["stack"]), first["stack"]
    assert first["outputs"] and all("relative_error" in row for row in first["outputs"].values())
    if task == "tensor" and args[1] == "gelu_tanh":
        # gelu's tanh approximation differs by ~1e-4 relative; the inputs by noise only.
        assert first["output_error"] > 1e-5 and first["input_error"] < 1e-5
    if args[1] == "log_neg":
        assert "inf/nan" in first["reason"]
    if level == "mix" and args[1] == "layernorm_eps":
        # The API call comes before the module that holds it; the module path is known.
        names = [s["name"] for s in div["suspects"]]
        assert names.index("Module.blocks.1.norm.LayerNorm.forward.0") > 0
        assert "Module.blocks.1.norm.LayerNorm.forward.0" in first["module_path"]


@pytest.mark.parametrize("task", ["statistics", "tensor"])
def test_pytorch_noise_alone_names_nothing(tmp_path, runs, task):
    bench = dump(runs, f"bench_{task}_L1", task, "L1")
    npu = dump(runs, f"npu_{task}_L1_none", task, "L1", "--fault", "none", "--noise", "1e-7")
    div, advisor, stderr = compare(tmp_path, npu, bench)
    assert div["suspects"] == []
    assert "First Divergence" not in advisor and "First divergence" not in stderr


def test_several_ranks_earliest_suspect_across_ranks(tmp_path, runs):
    """Two rank folders: rank0 differs by noise only, rank1 holds the fault. Every rank gets its
    own divergence file; divergence_{ts}.json ranks them together and names rank 1's call."""
    bench = dump(runs, "bench_statistics_L1", "statistics", "L1")
    clean = dump(runs, "npu_statistics_L1_none", "statistics", "L1", "--fault", "none", "--noise", "1e-7")
    faulty = dump(runs, "npu_statistics_L1_gelu_tanh", "statistics", "L1", "--fault", "gelu_tanh",
                  "--fault-call", "2", "--noise", "1e-7")
    for side, ranks in (("npu", (clean, faulty)), ("bench", (bench, bench))):
        for i, src in enumerate(ranks):
            shutil.copytree(src, tmp_path / side / "step0" / f"rank{i}")
    cfg = tmp_path / "compare.json"
    cfg.write_text(json.dumps({"npu_path": str(tmp_path / "npu" / "step0"),
                               "bench_path": str(tmp_path / "bench" / "step0")}))
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "compare", "-i", str(cfg),
                        "-o", str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    names = sorted(os.listdir(tmp_path / "out"))
    assert len([n for n in names if n.startswith("divergence_rank")]) == 2
    assert len([n for n in names if n.startswith("compare_report_rank")]) == 2
    (merged,) = [n for n in names if re.fullmatch(r"divergence_\d{14}\.json", n)]
    suspects = json.load(open(tmp_path / "out" / merged))["suspects"]
    assert (suspects[0]["name"], suspects[0]["rank"], suspects[0]["step"]) == ("Functional.gelu.2.forward", 1, 0)
    assert "Across all ranks: First divergence: Functional.gelu.2.forward (rank 1) at step 0" in r.stderr


MINDSPORE_CASES = [
    ("statistics", ["--fault", "gelu_tanh", "--fault-call", "1", "--noise", "1e-7"], "Functional.gelu.1.forward"),
    ("tensor", ["--fault", "gelu_tanh", "--fault-call", "1", "--noise", "1e-6"], "Functional.gelu.1.forward"),
    ("md5", ["--fault", "gelu_tanh", "--fault-call", "1"], "Functional.gelu.1.forward"),
]


@pytest.mark.parametrize("task,args,expected", MINDSPORE_CASES, ids=[c[0] for c in MINDSPORE_CASES])
def test_mindspore_fault_named_first(tmp_path, runs, task, args, expected):
    bench = dump(runs, f"ms_bench_{task}", task, "L1", mindspore=True)
    npu = dump(runs, f"ms_npu_{task}", task, "L1", *args, mindspore=True)
    div, advisor, _ = compare(tmp_path, npu, bench, framework="mindspore")
    assert div["suspects"][0]["name"] == expected, [s["name"] for s in div["suspects"]]
    assert f"First Divergence: {expected}: " in advisor
    # Next steps: the scoped re-dump configs; no config_op (1.2.1 has no MindSpore op_generate).
    # Replay: only tensor dumps, only the APIs MindSpore's run_ut replays (ops.gelu is not one).
    first = div["suspects"][0]
    assert os.path.isfile(first["next_steps"]["redump_config_npu"]) and first["next_steps"]["config_op"] is None
    if task == "tensor":
        assert first["replay"]["verdict"] is None
        assert first["replay"]["reason"].startswith("not replayed: RecordError: Functional.gelu is not an API")
    else:
        assert "replay" not in first


def test_mindspore_suspect_replayed_with_pytorch_in_float64(tmp_path, runs):
    # One MintFunctional.linear call computed in float16: MindSpore run_ut's machinery replays it
    # (PyTorch, float64) on each run's inputs; they agree, so the API is to blame. The backward
    # calls of the linears after it are no suspects: the inputs their forwards saved differ.
    bench = dump(runs, "ms_bench_tensor", "tensor", "L1", mindspore=True)
    npu = dump(runs, "ms_npu_linear_half", "tensor", "L1", "--fault", "linear_half", "--fault-call", "2",
               mindspore=True)
    div, _, log = compare(tmp_path, npu, bench, framework="mindspore")
    first = div["suspects"][0]
    assert first["name"] == "MintFunctional.linear.2.forward"
    assert first["replay"]["verdict"] == "the API", first["replay"]
    assert first["replay"]["replayed_output_error"] == pytest.approx(0.0, abs=1e-12)
    assert first["replay"]["npu_api_error"] > 100 * first["replay"]["bench_api_error"]
    assert "Replay of MintFunctional.linear.2.forward in float64 on each run's inputs: the API:" in log
    downstream = [s["name"] for s in div["suspects"]
                  if s["name"].startswith("MintFunctional.linear.") and s["direction"] == "backward"
                  and int(s["name"].split(".")[2]) > 2]
    assert downstream == [], downstream
