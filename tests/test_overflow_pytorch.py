"""overflow_check for PyTorch.

Drop-in: the training script tests/overflow/overflow_model.py (an fp16 matmul past 65504, the log
of a negative, a division by zero, an input holding inf) dumped with our package gives the same
entries, tensor records, tensor files, stack keys and construct trees as the ORIGINAL 1.2.1's
golden dumps in tests/fixtures/original_1.2.1_overflow (same cases, tests/overflow/cases.json),
and the same losses and final parameters, which also equal a run without any probe.
Beyond 1.2.1: overflow_summary.json names the culprits first, the first overflow is logged with
its source line, and `msprobe summary` names the earliest overflow across ranks."""
import json
import math
import os
import subprocess
import sys

import pytest
import torch
from conftest import TESTS_DIR, load_json, run_python
from dump_files import step_dirs
from original_dumps import (
    assert_same_construct_and_stack,
    case_runs,
    line_of,
    matching_tensor_records,
    original_tensor_files,
    without_hook_view_as,
)
from tolerances import close, same_stat_as_original

OVERFLOW_DIR = os.path.join(TESTS_DIR, "overflow")
MODEL = os.path.join(OVERFLOW_DIR, "overflow_model.py")
FIXTURES = os.path.join(TESTS_DIR, "fixtures", "original_1.2.1_overflow")
with open(os.path.join(OVERFLOW_DIR, "cases.json")) as _f:
    CASES = json.load(_f)


def model_line(text):
    """Line number of `text` in overflow_model.py."""
    return line_of(MODEL, text)


def losses(stdout):
    return [ln for ln in stdout.splitlines() if ln.startswith(("step ", "params "))]


def split_losses(lines):
    """["step 0 loss 1.5", "params HEX"] -> (["step 0 loss", "params"], [1.5], ["params HEX"])."""
    heads = [ln.rsplit(" ", 1)[0] for ln in lines]
    values = [float(ln.rsplit(" ", 1)[1]) for ln in lines if ln.startswith("step ")]
    return heads, values, [ln for ln in lines if ln.startswith("params ")]


@pytest.fixture(scope="module")
def run_of(tmp_path_factory):
    """run_of(case name) -> (dump folder, CompletedProcess): each case runs once per module."""
    runs = case_runs(tmp_path_factory, CASES, MODEL, run_python)

    def get(name):
        work, r = runs(name)
        return work / "dump", r
    return get


@pytest.fixture(scope="module")
def plain_of(tmp_path_factory):
    """plain_of(case name) -> CompletedProcess of the case's training without any probe."""
    done = {}

    def get(name):
        if name not in done:
            done[name] = run_python(MODEL, "--no-probe", *CASES[name]["args"], cwd=tmp_path_factory.mktemp("plain"))
        return done[name]
    return get


@pytest.fixture(params=sorted(CASES))
def dumped(request, run_of):
    return (request.param,) + run_of(request.param)


@pytest.fixture
def l1_all(run_of):
    return run_of("L1_all")


# ---- 1.2.1 drop-in ----------------------------------------------------------------------------

def test_training_same_as_original(dumped, plain_of):
    """The losses of 1.2.1's run, within the kernel tolerance (tests/tolerances.py: the goldens
    were made on another CPU), and its final parameters: the SHA-256 of their bytes holds only on
    the CPU it was made on, so where ours differs, it must equal a run without any probe here (as
    1.2.1's equals one there: neither changes training)."""
    name, _, r = dumped
    with open(os.path.join(FIXTURES, name, "stdout.txt")) as f:
        golden_heads, golden_losses, golden_params = split_losses(f.read().splitlines())
    heads, ours, params = split_losses(losses(r.stdout))
    assert heads == golden_heads
    assert all(close(a, b, "float32") for a, b in zip(ours, golden_losses)), (ours, golden_losses)
    if params != golden_params:
        assert params == split_losses(losses(plain_of(name).stdout))[2]


def test_training_unchanged_by_the_probe(run_of, plain_of):
    """Bit-identical losses and parameters (NaN included) with and without msprobe."""
    _, probe = run_of("L1_default")
    plain = plain_of("L1_default")
    assert losses(probe.stdout) == losses(plain.stdout)
    assert any(ln.startswith("params ") for ln in losses(plain.stdout))


def test_same_entries_records_and_files_as_original(dumped):
    name, ours_root, _ = dumped
    orig_root = os.path.join(FIXTURES, name)
    assert step_dirs(ours_root) == step_dirs(orig_root)
    for step in step_dirs(orig_root):
        ours_dir, orig_dir = os.path.join(ours_root, step, "rank"), os.path.join(orig_root, step, "rank")
        ours, orig = load_json(os.path.join(ours_dir, "dump.json")), load_json(os.path.join(orig_dir, "dump.json"))
        for key in ("task", "level", "framework", "dump_data_dir"):
            assert ours[key] == orig[key], key
        orig_data = without_hook_view_as(orig["data"])
        assert set(ours["data"]) == set(orig_data)
        for entry, path, u, t in matching_tensor_records(ours["data"], orig_data):
            for key in ("dtype", "shape", "requires_grad", "data_name",
                        "Max_except_inf_nan", "Min_except_inf_nan"):
                assert same_stat_as_original(u.get(key), t.get(key), t, key) if "except" in key \
                    else u.get(key) == t.get(key), (entry, path, key)
            # The original computes fp16/bf16 Mean and Norm in that dtype (tolerances.py).
            for key in ("Max", "Min", "Mean", "Norm"):
                assert same_stat_as_original(u[key], t[key], t, key), (entry, path, key, u[key], t[key])
        # 1.2.1 writes the stack of every forward call, overflowing or not.
        assert_same_construct_and_stack(ours_dir, orig_dir, stack_keys=list, original=without_hook_view_as)
        data_dir = os.path.join(ours_dir, "dump_tensor_data")
        assert sorted(os.listdir(data_dir)) == without_hook_view_as(original_tensor_files(orig_dir, data_dir))


def test_tensor_files_hold_the_overflow(l1_all):
    root, _ = l1_all
    data_dir = root / "step0" / "rank" / "dump_tensor_data"
    out = torch.load(data_dir / "Torch.matmul.0.forward.output.0.pt", weights_only=True)
    a = torch.load(data_dir / "Torch.matmul.0.forward.input.0.pt", weights_only=True)
    assert out.dtype == torch.float16 and torch.isinf(out).any()
    assert torch.isfinite(a).all() and a.abs().max() <= 65504
    # The record describes the saved tensor.
    entry = load_json(root / "step0" / "rank" / "dump.json")["data"]["Torch.matmul.0.forward"]
    assert entry["input_args"][0]["Max"] == a.max().item()
    assert entry["output"][0]["Max"] == math.inf
    log_out = torch.load(data_dir / "Torch.log.0.forward.output.0.pt", weights_only=True)
    assert torch.isnan(log_out).all()


def test_limit_ends_the_dump(run_of):
    root, r = run_of("L1_nums3")
    assert step_dirs(root) == ["step0"]  # the next start() ends the service, as in 1.2.1
    assert len(load_json(root / "step0" / "rank" / "dump.json")["data"]) == 3
    summary = load_json(root / "step0" / "rank" / "overflow_summary.json")
    assert summary["limit_reached"] and summary["overflows_in_run"] == 3 and summary["overflow_nums"] == 3
    assert "Reached the preset overflow times, current overflow times: 3." in r.stderr
    assert "msprobe ends successfully" in r.stderr


# ---- beyond 1.2.1 ---------------------------------------------------------------------------

def test_summary_ranks_culprits_first(l1_all):
    root, _ = l1_all
    s = load_json(root / "step0" / "rank" / "overflow_summary.json")
    assert s["task"] == "overflow_check" and s["step"] == 0 and s["rank"] is None
    dump = load_json(root / "step0" / "rank" / "dump.json")["data"]
    assert s["overflows_in_step"] == len(dump) == len(s["entries"])
    # In time the first overflow is torch.clamp receiving the inf of its input (passed on) ...
    assert s["first"]["entry"] == "Torch.clamp.0.forward" and s["first"]["kind"] == "passed_on"
    # ... but the culprit named first is the fp16 matmul, with its line of the script.
    fc = s["first_culprit"]
    assert fc["entry"] == "Torch.matmul.0.forward" and fc["kind"] == "culprit"
    assert fc["source"]["file"] == MODEL and fc["source"]["function"] == "forward"
    assert fc["source"]["line"] == model_line("g = torch.matmul(a, a.t())")
    assert fc["source"]["text"].startswith("g = torch.matmul(a, a.t())")
    apis = [(a["api"], a["direction"], a["kind"]) for a in s["apis"]]
    kinds = [k for _, _, k in apis]
    assert kinds == sorted(kinds, key=lambda k: k != "culprit")  # every culprit before the rest
    assert apis[:3] == [("Torch.matmul", "forward", "culprit"), ("Torch.log", "forward", "culprit"),
                        ("Tensor.__truediv__", "forward", "culprit")]
    assert ("Torch.clamp", "forward", "passed_on") in apis
    # Backward entries report the line of their forward call; the NaN loss makes every gradient
    # flowing in NaN, so they pass it on.
    div_bw = next(a for a in s["apis"] if a["api"] == "Tensor.__truediv__" and a["direction"] == "backward")
    assert div_bw["kind"] == "passed_on" and div_bw["source"]["line"] == model_line("y = y + h / (h - h)")
    adds = next(a for a in s["apis"] if a["api"] == "Tensor.__add__" and a["direction"] == "forward")
    assert adds["kind"] == "passed_on" and adds["count"] == adds["passed_on_count"] >= 2


def test_first_overflow_logged_once_with_source(l1_all):
    _, r = l1_all
    lines = [ln for ln in r.stderr.splitlines() if "first inf/NaN" in ln]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("[msprobe] WARNING: overflow_check: first inf/NaN at Torch.clamp.0.forward "
                               "(step 0, not distributed): it received inf/NaN")
    assert lines[0].endswith(f"called at {MODEL}:{model_line('s = torch.clamp(aux')} in forward: "
                             "s = torch.clamp(aux, max=1.0)                  # receives inf with --bad-aux: "
                             "passed on")
    assert any("step 0: " in ln and "overflow_summary.json" in ln for ln in r.stderr.splitlines())


def test_nothing_overflows(run_of):
    root, r = run_of("L1_none")
    d = root / "step0" / "rank"
    assert load_json(d / "dump.json")["data"] == {}
    assert os.listdir(d / "dump_tensor_data") == []
    s = load_json(d / "overflow_summary.json")
    assert s["overflows_in_step"] == 0 and s["first"] is None and s["apis"] == []
    assert "first inf/NaN" not in r.stderr


@pytest.mark.parametrize("fault,culprit", [("matmul", "Torch.matmul.0.forward"),
                                           ("log", "Torch.log.0.forward"),
                                           ("div", "Tensor.__truediv__.0.forward")])
def test_each_fault_is_its_own_first_culprit(tmp_path, fault, culprit):
    (tmp_path / "config.json").write_text(json.dumps(
        {"task": "overflow_check", "dump_path": "./dump", "level": "L1", "overflow_check": {"overflow_nums": -1}}))
    run_python(MODEL, "--config", "config.json", "--fault", fault, "--steps", "1", cwd=tmp_path)
    d = tmp_path / "dump" / "step0" / "rank"
    assert next(iter(load_json(d / "dump.json")["data"])) == culprit
    s = load_json(d / "overflow_summary.json")
    assert s["first"]["entry"] == s["first_culprit"]["entry"] == culprit
    assert s["apis"][0]["first_entry"] == culprit and s["apis"][0]["kind"] == "culprit"
    assert [a for a in s["apis"] if a["kind"] == "culprit" and a["direction"] == "forward"] == [s["apis"][0]]


def test_module_levels_classify_modules(run_of):
    root, _ = run_of("L0_all")
    s = load_json(root / "step0" / "rank" / "overflow_summary.json")
    # head's forward turns the NaN its input carries into NaN logits: passed on; the backward of
    # block.fc gets NaN gradients: passed on. No module made inf/NaN from finite values here
    # (the culprits are APIs inside Block's caller), and every parameter gradient is passed on.
    kinds = {(a["api"], a["direction"]): a["kind"] for a in s["apis"]}
    assert kinds[("Module.head.Linear", "forward")] == "passed_on"
    assert kinds[("Module.head.Linear", "parameters_grad")] == "passed_on"
    assert kinds[("Module.block.fc.Linear", "parameters_grad")] == "passed_on"
    # 1.2.1 counts each overflowing parameter gradient: 2 for fc (weight, bias), 2 for head.
    assert s["overflows_in_step"] == 4 + 4


def test_two_ranks_earliest_named_by_summary(tmp_path):
    """Rank 1 overflows (log of a negative) while rank 0 stays finite; `msprobe summary` names
    rank 1's culprit as the earliest across ranks."""
    worker = r"""
import os, torch, torch.distributed as dist
from msprobe.pytorch import PrecisionDebugger
dist.init_process_group("gloo", rank=int(os.environ["RANK"]), world_size=2)
dbg = PrecisionDebugger(config_path="config.json")
dbg.start()
x = torch.full((4,), 2.0)
y = torch.log(x - 3.0 * dist.get_rank())   # rank 1: log(-1) = NaN
dist.all_reduce(y)                          # both ranks receive NaN
dbg.stop()
dbg.step()
dist.destroy_process_group()
"""
    (tmp_path / "config.json").write_text(json.dumps(
        {"task": "overflow_check", "dump_path": "./dump", "level": "L1", "overflow_check": {"overflow_nums": -1}}))
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT="29541", WORLD_SIZE="2",
               PYTHONPATH=TESTS_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, "-c", worker], cwd=tmp_path, env=dict(env, RANK=str(r)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=240)
        assert p.returncode == 0, err
    s0 = load_json(tmp_path / "dump" / "step0" / "rank0" / "overflow_summary.json")
    s1 = load_json(tmp_path / "dump" / "step0" / "rank1" / "overflow_summary.json")
    # Seen from rank 0 alone, all_reduce made NaN out of finite values (a collective can also
    # overflow by itself); in time it comes after rank 1's log, which fed it.
    assert s0["rank"] == 0 and s0["first_culprit"]["entry"] == "Distributed.all_reduce.0.forward"
    assert s1["rank"] == 1 and s1["first_culprit"]["entry"] == "Torch.log.0.forward"
    assert s1["first_culprit"]["time"] < s0["first_culprit"]["time"]
    out = run_python("import sys; from msprobe.cli import main; sys.exit(main())", "summary", "dump",
                     cwd=tmp_path).stdout
    assert "earliest culprit across ranks: Torch.log.0.forward (culprit) at step 0, rank 1" in out
    assert "step0/rank0: overflow_check: 1 overflowing entries, 1 produced inf/NaN" in out
    assert "step0/rank1: overflow_check: 2 overflowing entries, 1 produced inf/NaN" in out


@pytest.mark.parametrize("section,needle", [
    ({"overflow_nums": "1"}, '"overflow_check.overflow_nums" must be -1 (no limit) or an integer >= 0'),
    ({"overflow_nums": -3}, 'got -3'),
    ({"overflow_nums": 2.5}, 'got 2.5'),
    ({"overflow_nums": True}, 'got true'),
    ({"check_mode": "vector"}, '"overflow_check.check_mode" must be one of all, aicore, atomic, got "vector"'),
    ({"scope": "Torch.matmul.0.forward"}, '"overflow_check.scope" must be a list of strings'),
])
def test_bad_overflow_config_gives_one_line(fresh_debugger, tmp_path, section, needle):
    from msprobe import _core
    cfg = tmp_path / "bad.json"
    cfg.write_text(json.dumps({"task": "overflow_check", "dump_path": "./dump", "level": "L1",
                               "overflow_check": section}))
    with pytest.raises(_core.ConfigError) as e:
        fresh_debugger(config_path=str(cfg))
    message = str(e.value)
    assert "\n" not in message and message.startswith(str(cfg)) and needle in message
