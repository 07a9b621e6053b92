"""First divergence on the pairs users bring (tests/compare/real_pair.py: a transformers GPT-2
built from a config, one training step under our probe): bf16 / fp16 autocast against fp32 with
and without a kernel a few percent off, a perturbed weight, a changed input, a changed BatchNorm
buffer, two ranks, MindSpore against PyTorch. Each test asserts the first suspect and its
sentence; every compare also has to tell one story in the console, the advisor, the xlsx, the
divergence json and the report (test_one_verdict_everywhere). test_loop_ends_at_the_cause walks
the next steps end to end."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import openpyxl
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REAL_PAIR = os.path.join(HERE, "real_pair.py")
GPT2_WEIGHT = "transformer.h.1.mlp.c_fc.weight"


def train(path, *args, config=None):
    argv = [sys.executable, REAL_PAIR, str(path), *args]
    if config:
        argv += ["--config", config]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return r


class Runs:
    """Dumps made once per module, by name."""

    def __init__(self, root):
        self.root = root

    def get(self, name, *args):
        path = os.path.join(self.root, name)
        if not os.path.exists(path):
            train(path, *args)
        return os.path.join(path, "step0", "rank")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return Runs(str(tmp_path_factory.mktemp("real_pairs")))


class Compared:
    def __init__(self, out, stderr):
        self.out, self.stderr = out, stderr
        (div,) = glob.glob(os.path.join(out, "divergence_*.json"))
        self.divergence = json.load(open(div))
        self.suspects = self.divergence["suspects"]
        (advisor,) = glob.glob(os.path.join(out, "advisor_*.txt"))
        self.advisor = open(advisor).read()
        (self.xlsx,) = glob.glob(os.path.join(out, "compare_result_*.xlsx"))
        (self.report,) = glob.glob(os.path.join(out, "compare_report_*.html"))

    @property
    def first(self):
        return self.suspects[0]

    def strong(self):
        return [s for s in self.suspects if s["confidence"] in ("high", "medium")]


def compare(tmp_path, npu_rank_dir, bench_rank_dir, framework="pytorch", cfg=None, out=None):
    if cfg is None:
        cfg = tmp_path / "compare.json"
        cfg.write_text(json.dumps({"npu_path": os.path.join(npu_rank_dir, "dump.json"),
                                   "bench_path": os.path.join(bench_rank_dir, "dump.json")}))
    out = str(out or tmp_path / "out")
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", framework, "compare", "-i", str(cfg), "-o", out],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    return Compared(out, r.stderr)


def xlsx_rows(path):
    ws = openpyxl.load_workbook(path).active
    rows = list(ws.iter_rows())
    header = [c.value for c in rows[0]]
    return header, rows[1:]


def assert_one_verdict(c):
    """The console, the advisor, the xlsx, the json and the report agree."""
    strong = c.strong()
    header, rows = xlsx_rows(c.xlsx)
    name = header.index("NPU Name")
    result = header.index("Accuracy Reached or Not") if "Accuracy Reached or Not" in header else header.index("Result")
    red = {r[name].value for r in rows if r[0].fill.fgColor.rgb == "FFFF0000"}
    if strong:
        first = strong[0]
        assert "All data from api input/output accuracy reached" not in c.stderr
        row = first["source_row"] if first["kind"] == "source" else first["name"]
        node = re.search(r"^Suspect Nodes: (.*)$", c.advisor, re.M).group(1)
        assert node == row or node.startswith(row + "."), (node, row)
        assert f"First Divergence: {first['name']}: " in c.advisor
        marked = [r for r in rows if r[name].value == row or str(r[name].value).startswith(row + ".output")]
        assert marked and all(r[name].value in red and r[result].value in ("Warning", "No", "Different")
                              for r in marked)
        assert f"First divergence: {first['name']}" in c.stderr
    # The report counts as errors exactly the rows the strong suspects marked.
    marked_rows = sum(1 for r in rows if re.search(r"(First divergence|Source) \((high|medium)\)",
                                                   str(r[header.index("Err_message")].value or ""))) \
        if "Err_message" in header else None
    html = open(c.report).read()
    data = json.loads(re.search(r'<script id="msprobe-data" type="application/json">(.*?)</script>', html,
                                re.S).group(1))
    if marked_rows is not None:
        assert data["counts"]["rows"]["error"] == marked_rows, (data["counts"], marked_rows)
    assert [s["name"] for s in data["suspects"]] == [s["name"] for s in c.suspects]


# ------------------------------------------------------------------------------- bf16 / fp16


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_low_precision_autocast_alone_is_no_suspect(tmp_path, runs, precision):
    bench = runs.get("bench")
    npu = runs.get(f"{precision}", "--autocast", precision)
    c = compare(tmp_path, npu, bench)
    assert c.strong() == [], [(s["name"], s["reason"]) for s in c.strong()]
    assert "rows found no bench row" not in c.stderr            # every bf16/fp16 row pairs with fp32
    header, rows = xlsx_rows(c.xlsx)
    assert not [r for r in rows if r[header.index("Bench Name")].value == "N/A"]
    dtypes = {(r[header.index("NPU Dtype")].value, r[header.index("Bench Dtype")].value) for r in rows}
    assert (f"torch.{'bfloat16' if precision == 'bf16' else 'float16'}", "torch.float32") in dtypes
    assert_one_verdict(c)


@pytest.mark.parametrize("precision,task", [("bf16", "statistics"), ("bf16", "tensor"), ("fp16", "statistics")])
def test_kernel_a_few_percent_off_under_low_precision_comes_first(tmp_path, runs, precision, task):
    bench = runs.get(f"bench_{task}", "--task", task)
    npu = runs.get(f"{precision}_{task}_fault", "--task", task, "--autocast", precision, "--fault", "gelu_scale",
                   "--fault-call", "1")
    c = compare(tmp_path, npu, bench)
    assert c.first["name"] == "Torch.tanh.1.forward", [(s["name"], s["reason"]) for s in c.suspects]
    assert c.first["confidence"] in ("high", "medium") and c.first["kind"] == "call"
    assert c.first["reason"].startswith("inputs agree") and 0.03 < c.first["output_error"] < 0.06
    assert_one_verdict(c)


# ------------------------------------------------------------------------------- sources


def test_perturbed_weight_is_named(tmp_path, runs):
    bench = runs.get("bench")
    npu = runs.get("weight", "--perturb", f"{GPT2_WEIGHT}:0.01")
    c = compare(tmp_path, npu, bench)
    assert c.first["kind"] == "source" and c.first["source_tensor"] == f"parameter:{GPT2_WEIGHT}"
    m = re.fullmatch(rf"parameter `{re.escape(GPT2_WEIGHT)}` differs before any call \(relative error ([0-9.e-]+)\)",
                     c.first["reason"])
    assert m and float(m.group(1)) == pytest.approx(0.01, rel=0.05), c.first["reason"]
    assert "next_steps" not in c.first          # the answer itself: nothing to re-dump
    assert_one_verdict(c)


def test_perturbed_weight_at_l0_named_by_the_module_path(tmp_path, runs):
    bench = runs.get("bench_L0", "--level", "L0")
    npu = runs.get("weight_L0", "--level", "L0", "--perturb", f"{GPT2_WEIGHT}:0.01")
    c = compare(tmp_path, npu, bench)
    assert c.first["name"] == "Module.transformer.h.1.mlp.c_fc.Conv1D.forward.0"
    assert c.first["reason"].startswith(f"parameter `{GPT2_WEIGHT}` differs before any call")
    # The modules holding it differ because of it: none of them is a suspect.
    assert not [s for s in c.suspects if s["name"].startswith(("Module.transformer.h.1.mlp.GPT2MLP",
                                                                "Module.transformer.h.1.GPT2Block"))]


def test_perturbed_weight_without_the_model(tmp_path, runs):
    bench = runs.get("bench")
    npu = runs.get("weight_no_model", "--no-model", "--perturb", f"{GPT2_WEIGHT}:0.01")
    c = compare(tmp_path, npu, bench)
    assert c.first["kind"] == "source" and c.first["source_tensor"] is None
    assert re.match(r"an input of `Torch\.addmm\.\d+\.forward` that no recorded call produced differs "
                    r"\(input\.2\): a parameter or data", c.first["reason"]), c.first["reason"]


def test_changed_input_is_the_models_input(tmp_path, runs):
    bench = runs.get("bench")
    npu = runs.get("input", "--change-input")
    c = compare(tmp_path, npu, bench)
    assert c.first["kind"] == "source" and c.first["source_tensor"] == "input:0"
    assert c.first["name"] == "Functional.embedding.0.forward"
    assert c.first["reason"].startswith("the model's input `0` differs (relative error ")
    assert_one_verdict(c)


def test_changed_buffer_is_named(tmp_path, runs):
    bench = runs.get("bn_bench", "--model", "bn")
    npu = runs.get("bn_buffer", "--model", "bn", "--perturb-buffer", "bn.running_mean:0.5")
    c = compare(tmp_path, npu, bench)
    assert c.first["kind"] == "source" and c.first["source_tensor"] == "buffer:bn.running_mean"
    assert c.first["reason"].startswith("buffer `bn.running_mean` differs before any call")
    assert_one_verdict(c)


# ------------------------------------------------------------------------------- the loop


def test_loop_ends_at_the_cause(tmp_path, runs):
    """L0 statistics -> the module holding the faulty call -> its scoped mix re-dump -> the call ->
    its scoped L1 re-dump, confirmed and replayed -> op_generate. No step is proposed twice."""
    npu_args = ["--fault", "gelu_scale", "--fault-call", "1"]
    bench = runs.get("bench_L0", "--level", "L0")
    npu = runs.get("bf16_fault_L0", "--level", "L0", *npu_args)
    proposed = []
    c = compare(tmp_path, npu, bench, out=tmp_path / "round0")
    for round_ in range(1, 4):
        first = c.strong()[0]
        steps = first["next_steps"]
        if steps["redump_config_npu"] is None:
            break
        configs = tuple(json.load(open(steps[k]))["tensor"]["list"][0] for k in ("redump_config_npu",))
        assert configs not in proposed, (configs, proposed)
        proposed.append(configs)
        train("unused", *npu_args, config=steps["redump_config_npu"])
        train("unused", config=steps["redump_config_bench"])
        c = compare(tmp_path, None, None, cfg=steps["compare_json"], out=tmp_path / f"round{round_}")
        check = c.divergence["redump_check"]
        assert check["suspect"] == first["name"] and check["verdict"] == "confirmed", check
        assert f"Re-dump of {first['name']}: confirmed" in c.stderr
    assert proposed[0][0] == "Module.transformer.h.1.mlp.act.NewGELUActivation.forward.0", proposed
    assert proposed[-1] == ("Torch.tanh.1.",), proposed
    last = c.strong()[0]
    assert last["name"] == "Torch.tanh.1.forward"
    assert last["replay"]["verdict"] == "the API", last["replay"]
    assert last["next_steps"]["redump_config_npu"] is None and last["next_steps"]["config_op"]
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "op_generate", "-i",
                        last["next_steps"]["config_op"], "-o", os.path.dirname(last["next_steps"]["config_op"])],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    folder = os.path.dirname(last["next_steps"]["config_op"])
    run = subprocess.run([sys.executable, os.path.join(folder, "Torch.tanh.1.forward.py")], capture_output=True,
                         text=True, timeout=300, env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    assert run.returncode == 0, run.stderr
    verdict = run.stdout.splitlines()[-1].split(": ")[1]
    # The script leaves its verdict beside it; the report that proposed it shows it under the suspect.
    assert os.path.isfile(os.path.join(folder, "op_verdict.js"))
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "report"))
    import cdp
    if cdp.chromium_path() is None:
        pytest.fail("chromium is not installed (apt-get install chromium)")
    with cdp.Browser() as b:
        b.open("file://" + c.report)
        div = "document.querySelector('.op-verdict[data-suspect=\"Torch.tanh.1.forward\"]')"
        b.wait_for(f"{div}.textContent")
        assert b.eval(f"{div}.textContent").startswith(f"op_generate: {verdict} (on cpu, real_data)")
        assert b.problems() == []  # suspects whose script has not run load the empty op_verdict.js


# ------------------------------------------------------------------------------- two ranks


def test_two_ranks_follow_the_difference_to_its_rank(tmp_path):
    """Two gloo ranks; only rank 1 computes one op a few percent off, before an all_reduce of
    the activations. Every run of the same script names rank 1's op, never rank 0's collective."""
    script = os.path.join(HERE, "two_rank_pair.py")
    for side, fault in (("bench", "none"), ("npu", "scale")):
        r = subprocess.run([sys.executable, script, str(tmp_path / side), "--fault", fault], capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
    cfg = tmp_path / "compare.json"
    cfg.write_text(json.dumps({"npu_path": str(tmp_path / "npu" / "step0"),
                               "bench_path": str(tmp_path / "bench" / "step0")}))
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "compare", "-i", str(cfg), "-o",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (merged,) = [f for f in os.listdir(tmp_path / "out") if re.fullmatch(r"divergence_\d{14}\.json", f)]
    suspects = json.load(open(tmp_path / "out" / merged))["suspects"]
    assert (suspects[0]["rank"], suspects[0]["name"]) == (1, "Torch.tanh.0.forward"), suspects[:3]
    assert not [s for s in suspects if s["name"].startswith("Distributed.") and s["confidence"] != "low"]


# ------------------------------------------------------------------------------- MindSpore


def test_mindspore_against_pytorch_fault_first(tmp_path):
    """A MindSpore run (fault_net_ms.py, one gelu with the tanh approximation) against a PyTorch
    run of the same net and weights: the cross-framework pair pairs every float row by name and
    names the gelu first."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "mindspore"))
    from ms_helpers import run_python as run_ms_python
    ms_script = os.path.join(HERE, "fault_net_ms.py")
    run_ms_python(ms_script, "--task", "statistics", "--level", "L1", "--fault", "gelu_tanh", "--fault-call", "1",
                  str(tmp_path / "ms"))
    r = subprocess.run([sys.executable, os.path.join(HERE, "fault_net_torch_twin.py"), str(tmp_path / "pt")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    c = compare(tmp_path, str(tmp_path / "ms" / "step0" / "rank"), str(tmp_path / "pt" / "step0" / "rank"),
                framework="mindspore")
    assert c.first["name"] == "Functional.gelu.1.forward", [(s["name"], s["reason"]) for s in c.suspects]
    assert_one_verdict(c)


@pytest.fixture(autouse=True)
def _no_leftover(tmp_path):
    yield
    shutil.rmtree(tmp_path / "unused", ignore_errors=True)


def test_redump_clears_what_the_statistics_misjudged(tmp_path, runs):
    """A changed token moves one row of the embeddings: the statistics of the next matmul's input
    barely move while its output's do, so statistics name it. Its tensor re-dump clears it and
    names the source the first compare found."""
    bench = runs.get("bench")
    npu = runs.get("input", "--change-input")
    c = compare(tmp_path, npu, bench)
    assert c.first["kind"] == "source"
    call = next(s for s in c.suspects if s["kind"] == "call" and s["name"].startswith("Torch.addmm."))
    steps = call["next_steps"]
    train("unused", "--change-input", config=steps["redump_config_npu"])
    train("unused", config=steps["redump_config_bench"])
    again = compare(tmp_path, None, None, cfg=steps["compare_json"], out=tmp_path / "again")
    check = again.divergence["redump_check"]
    assert check["verdict"] == "cleared", check
    assert check["sentence"].startswith("cleared: with the tensors of both runs its inputs already differ")
    assert check["sentence"].endswith("the source is: Functional.embedding.0.forward: the model's input `0` differs "
                                      f"(relative error {c.first['input_error']:.3g})")
