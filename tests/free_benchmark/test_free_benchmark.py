"""free_benchmark with real torch on CPU: what it flags, what it leaves alone, fix, the summary, and
the bad input it refuses (docs/free_benchmark.md)."""
import csv
import json
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from conftest import run_python  # noqa: E402

from msprobe import _core  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def write_config(tmp_path, **section):
    cfg = {"task": "free_benchmark", "dump_path": str(tmp_path / "dump"), "level": "L1",
           "free_benchmark": section}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return str(path)


def rows(tmp_path):
    path = tmp_path / "dump" / "free_benchmark.csv"
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def cancellation():
    """4096 + one ulp minus 4096: its lowest bit is the whole result."""
    big = torch.full((3, 4), 4096.0) + torch.finfo(torch.float32).eps * 4096
    return torch.sub(big, torch.full((3, 4), 4096.0))


def test_ill_conditioned_flagged_well_conditioned_not(fresh_debugger, tmp_path):
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="bit_noise"))
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(4, 8, generator=g), torch.randn(8, 3, generator=g)
    dbg.start()
    torch.matmul(a, b)
    torch.nn.functional.relu(a)
    torch.exp(a)
    cancellation()
    dbg.stop()
    dbg.step()
    got = rows(tmp_path)
    assert [r["api_name"] for r in got] == ["Torch.sub.0.forward"]
    r = got[0]
    assert (r["rank"], r["pert_mode"], r["stage"], r["step"]) == ("0", "bit_noise", "forward", "0")
    assert float(r["max_rel"]) > 1.0 and r["dtype"] == "torch.float32" and r["shape"] == "torch.Size([3, 4])"
    assert r["output_index"] == ""


def test_sequence_outputs_get_their_index(fresh_debugger, tmp_path):
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="change_value"))
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, -6.0]])
    dbg.start()
    torch.split(x, 1, dim=0)
    dbg.stop()
    got = rows(tmp_path)
    assert [(r["api_name"], r["output_index"]) for r in got] == [("Torch.split.0.forward", "0"),
                                                                  ("Torch.split.0.forward", "1")]
    assert got[0]["shape"] == "torch.Size([1, 3])"


def test_backward_of_several_outputs_is_checked(fresh_debugger, tmp_path):
    # topk's values and indices come from one autograd node: its gradients arrive together
    # (zeros for the integer indices), the vjp runs on the input with its two largest elements
    # swapped by change_value, and the gradient lands elsewhere. 1.2.1 fails here ("v is a tuple
    # of invalid length"). split's gradient does not depend on the input's values: no row.
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="change_value", fuzz_stage="backward"))
    x = torch.tensor([[1.0, 5.0, 3.0, 2.0], [4.0, 0.5, -6.0, 7.0]], requires_grad=True)
    dbg.start()
    values, _ = torch.topk(x, 2, dim=1)
    first, _ = torch.split(x, 1, dim=0)
    loss = (values * torch.tensor([[1.0, 2.0]])).sum() + (first * 3).sum()
    loss.backward()
    dbg.stop()
    dbg.step()
    got = rows(tmp_path)
    assert {r["api_name"] for r in got} == {"Torch.topk.0.backward"}
    assert all(r["stage"] == "backward" and r["shape"] == "torch.Size([2, 4])" for r in got)
    assert float(got[0]["max_rel"]) > 1.0
    expected = torch.zeros(2, 4)
    expected[0, 1], expected[0, 2], expected[1, 3], expected[1, 0] = 1.0, 2.0, 1.0, 2.0
    expected[0] += 3.0
    assert torch.equal(x.grad, expected)   # training's gradient is the API's own


def test_scope_selects_exact_call_names(fresh_debugger, tmp_path):
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="bit_noise",
                                                  scope=["Torch.sub.1.forward"]))
    dbg.start()
    cancellation()
    cancellation()
    dbg.stop()
    assert [r["api_name"] for r in rows(tmp_path)] == ["Torch.sub.1.forward"]


@pytest.mark.parametrize("mode", ["no_change", "change_value", "bit_noise"])
def test_inplace_api_rerun_on_what_it_received(fresh_debugger, tmp_path, mode):
    # 1.2.1 re-runs add_ on the tensor it already updated (no_change even adds twice).
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode=mode))
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    dbg.start()
    y = x.add_(torch.tensor([0.5, 0.5, 0.5, 0.5]))
    dbg.stop()
    assert y is x
    assert x.tolist() == [1.5, 2.5, 3.5, 4.5]
    flagged = [r["api_name"] for r in rows(tmp_path)]
    if mode == "change_value":  # swapping first and last of what add_ received moves its output
        assert flagged == ["Tensor.add_.0.forward"]
    else:
        assert flagged == []


def test_out_argument_is_not_written_by_the_second_run(fresh_debugger, tmp_path):
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="change_value"))
    a, b = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([10.0, 20.0, 30.0])
    out = torch.empty(3)
    dbg.start()
    torch.add(a, b, out=out)
    dbg.stop()
    assert out.tolist() == [11.0, 22.0, 33.0]
    assert a.tolist() == [1.0, 2.0, 3.0]


def test_fix_changes_what_training_sees(fresh_debugger, tmp_path):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(64, 33, generator=g).to(torch.bfloat16)
    plain = torch.nn.functional.normalize(x, dim=1)
    better = torch.nn.functional.normalize(x.float(), dim=1).to(torch.bfloat16)
    assert not torch.equal(plain, better)  # the precondition: bf16 rounds differently here
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="improve_precision", handler_type="fix"))
    dbg.start()
    fixed = torch.nn.functional.normalize(x, dim=1)
    dbg.stop()
    assert fixed.dtype == torch.bfloat16
    assert torch.equal(fixed, better)
    assert rows(tmp_path) == []  # fix writes no rows


def test_fix_keeps_the_autograd_graph(fresh_debugger, tmp_path):
    x = torch.randn(4, 5).to(torch.bfloat16).requires_grad_(True)
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="improve_precision", handler_type="fix"))
    dbg.start()
    y = torch.nn.functional.normalize(x, dim=1)
    dbg.stop()
    y.sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape


@pytest.mark.parametrize("section,args", [
    ({"pert_mode": "bit_noise"}, ["--dropout", "--opt-inside"]),
    ({"pert_mode": "no_change"}, ["--dropout", "--opt-inside"]),
    ({"pert_mode": "change_value", "fuzz_stage": "backward"}, ["--dropout", "--opt-inside"]),
    ({"pert_mode": "improve_precision"}, ["--dtype", "bfloat16", "--dropout", "--opt-inside"]),
    ({"pert_mode": "to_cpu", "fuzz_device": "cpu"}, ["--dropout"]),
    ({"pert_mode": "add_noise", "if_preheat": True, "preheat_step": 2, "max_sample": 2}, ["--steps", "3"]),
])
def test_check_leaves_training_bit_identical(tmp_path, section, args):
    cfg = write_config(tmp_path, **section)
    script = os.path.join(HERE, "fb_model.py")
    probed = run_python(script, cfg, *args, cwd=str(tmp_path)).stdout
    plain = run_python(script, cfg, "--no-probe", *args, cwd=str(tmp_path)).stdout
    assert [ln for ln in probed.splitlines() if ln.startswith("{")] == \
           [ln for ln in plain.splitlines() if ln.startswith("{")]
    assert (tmp_path / "dump" / "free_benchmark_summary.json").exists()


def test_summary_ranks_flagged_apis_with_the_users_line(tmp_path):
    cfg = write_config(tmp_path, pert_mode="change_value")
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\n"
        "from msprobe.pytorch import PrecisionDebugger\n"
        f"d = PrecisionDebugger(config_path={cfg!r})\n"
        "d.start()\n"
        "x = torch.tensor([1.0, 2.0, 3.0, 4.0])\n"
        "y = torch.mul(x, 1.0)  # mild\n"
        "z = torch.sub(x, torch.tensor([1.0, 2.0, 3.0, 3.9999]))  # cancels\n"
        "d.stop()\n"
        "d.step()\n")
    r = run_python(str(script), cwd=str(tmp_path))
    summary = json.loads((tmp_path / "dump" / "free_benchmark_summary.json").read_text())
    assert summary["task"] == "free_benchmark" and summary["pert_mode"] == "change_value"
    apis = [a["api"] for a in summary["apis"]]
    assert apis[0] == "Torch.sub"
    assert set(apis) >= {"Torch.sub", "Torch.mul"}
    top = summary["apis"][0]
    assert top["source"]["file"] == str(script) and top["source"]["line"] == 7
    assert "torch.sub" in top["source"]["text"]
    assert top["times_limit"] is None or top["times_limit"] > 1
    end = [ln for ln in r.stderr.splitlines() if "free_benchmark:" in ln]
    assert len(end) == 1 and "worst: Torch.sub" in end[0] and f"{script}:7" in end[0]


def test_no_process_group_still_writes_rows_with_rank_0(fresh_debugger, tmp_path):
    assert not torch.distributed.is_initialized()
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="bit_noise"))
    dbg.start()
    cancellation()
    dbg.stop()
    assert [r["rank"] for r in rows(tmp_path)] == ["0"]


def test_device_reductions_give_the_host_verdict(fresh_debugger, tmp_path):
    """The reductions the adapter computes with torch ops for device tensors lead the judge to
    the verdict it reaches over host memory (run here on CPU tensors)."""
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="bit_noise"))
    runner = dbg._instance.fuzz
    g = torch.Generator().manual_seed(5)
    for o, p in [(torch.randn(50, generator=g), None), (torch.tensor([1.0, -2.0, 3.0]), torch.tensor([1.0, 2.0, 3.0])),
                 (torch.tensor([1e-9, 1.0]), torch.tensor([0.0, 1.0])), (torch.randn(7, generator=g).half(), None)]:
        if p is None:
            p = o * (1 + 1e-3)
        host = runner.checker.check_tensor("Torch.x.0.forward", 0, 0, -1, o, p)
        dev = runner._compare_on_device("Torch.x.0.forward", 0, -1, o, p)
        assert (host.consistent, host.symbol_flipping) == (dev.consistent, dev.symbol_flipping)
        assert host.ratio == dev.ratio


@pytest.mark.parametrize("section,message", [
    ({"pert_mode": "noise"}, '"free_benchmark.pert_mode" must be one of'),
    ({"handler_type": "fix", "pert_mode": "add_noise"}, '"free_benchmark.pert_mode" must be improve_precision'),
    ({"handler_type": "fix", "fuzz_stage": "backward"}, '"free_benchmark.fuzz_stage" must be forward'),
    ({"handler_type": "fix", "if_preheat": True}, '"free_benchmark.if_preheat" must be false'),
    ({"fuzz_device": "cpu"}, '"free_benchmark.fuzz_device" cpu requires'),
    ({"pert_mode": "to_cpu"}, 'must be cpu when "free_benchmark.pert_mode" is to_cpu'),
    ({"if_preheat": True, "preheat_step": 0}, '"free_benchmark.preheat_step" must be an integer > 0'),
    ({"max_sample": -3}, '"free_benchmark.max_sample" must be an integer > 0'),
    ({"fuzz_level": "L2"}, '"free_benchmark.fuzz_level" must be one of L1'),
    ({"scope": ["Torch.add.0.forward"], "list": ["relu"]}, "cannot both be set"),
])
def test_bad_input_is_one_line_before_training(fresh_debugger, tmp_path, section, message):
    with pytest.raises(_core.ConfigError) as e:
        fresh_debugger(config_path=write_config(tmp_path, **section))
    assert message in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "dump").exists()


def test_setitem_and_inplace_keyword_are_rerun_on_copies(fresh_debugger, tmp_path):
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="no_change"))
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    h = torch.tensor([0.5, -1.0, 2.0, -3.0])
    torch.manual_seed(7)
    expected = torch.nn.functional.dropout(h.clone(), p=0.5, training=True)
    torch.manual_seed(7)
    dbg.start()
    x[1] = 10.0
    torch.nn.functional.dropout(h, p=0.5, training=True, inplace=True)
    dbg.stop()
    assert x.tolist() == [1.0, 10.0, 3.0, 4.0]
    assert torch.equal(h, expected)  # dropped out once, not twice
    assert rows(tmp_path) == []


def test_collectives_are_not_rerun():
    from msprobe.pytorch.free_benchmark.runner import is_inplace, never_rerun
    assert never_rerun("Distributed.all_reduce") and not never_rerun("Torch.add")
    assert is_inplace("Tensor.add_") and is_inplace("Tensor.__iadd__") and is_inplace("Tensor.__setitem__")
    assert is_inplace("Functional.relu", {"inplace": True}) and not is_inplace("Functional.relu", {})
    assert not is_inplace("Tensor.__add__")


def test_fix_to_cpu_gives_the_cpu_result(fresh_debugger, tmp_path):
    g = torch.Generator().manual_seed(4)
    x = torch.randn(64, 33, generator=g).to(torch.bfloat16)
    better = torch.nn.functional.normalize(x.float(), dim=1).to(torch.bfloat16)
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="to_cpu", fuzz_device="cpu",
                                                  handler_type="fix"))
    dbg.start()
    fixed = torch.nn.functional.normalize(x, dim=1)
    dbg.stop()
    assert fixed.dtype == torch.bfloat16 and torch.equal(fixed, better)


def test_to_cpu_check_writes_one_row_per_call_without_max_rel(fresh_debugger, tmp_path):
    # 256 + 1.5 is 258 in bf16 and 257.5 on the fp32 CPU run: every element off by the same
    # 0.19%, under bf16's relative standard (2^-8) but far past the error balance (1e-4).
    x = torch.full((8,), 256.0, dtype=torch.bfloat16)
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="to_cpu", fuzz_device="cpu"))
    dbg.start()
    y = torch.add(x, 1.5)
    torch.add(x, 2.0)  # exact in bf16: not flagged
    dbg.stop()
    dbg.step()
    assert y.tolist() == [258.0] * 8
    got = rows(tmp_path)
    assert [r["api_name"] for r in got] == ["Torch.add.0.forward"]
    r = got[0]
    assert (r["pert_mode"], r["max_rel"], r["output_index"]) == ("to_cpu", "", "")
    assert (r["dtype"], r["shape"]) == ("torch.bfloat16", "torch.Size([8])")
    summary = json.loads((tmp_path / "dump" / "free_benchmark_summary.json").read_text())
    assert summary["apis"][0]["measure"] == "err_balance"


def test_only_the_configured_steps_are_checked(fresh_debugger, tmp_path):
    cfg = {"task": "free_benchmark", "dump_path": str(tmp_path / "dump"), "level": "L1", "step": [1],
           "free_benchmark": {"pert_mode": "bit_noise"}}
    (tmp_path / "c.json").write_text(json.dumps(cfg))
    dbg = fresh_debugger(config_path=str(tmp_path / "c.json"))
    for _ in range(3):
        dbg.start()
        cancellation()
        dbg.stop()
        dbg.step()
    assert [(r["step"], r["api_name"]) for r in rows(tmp_path)] == [("1", "Torch.sub.0.forward")]
    assert sorted(p.name for p in (tmp_path / "dump").iterdir() if p.name.startswith("step")) == ["step1"]


def test_task_argument_with_the_default_section(fresh_debugger, tmp_path):
    """PrecisionDebugger(task="free_benchmark") on a config without the section: 1.2.1's defaults
    (improve_precision, check), which re-run nothing in fp32 and flag fp16 trouble only."""
    (tmp_path / "c.json").write_text(json.dumps({"task": "statistics", "dump_path": str(tmp_path / "dump")}))
    dbg = fresh_debugger(config_path=str(tmp_path / "c.json"), task="free_benchmark")
    assert dbg._instance.config.free_benchmark.pert_mode == "improve_precision"
    dbg.start()
    cancellation()
    dbg.stop()
    dbg.step()
    assert rows(tmp_path) == []
    summary = json.loads((tmp_path / "dump" / "free_benchmark_summary.json").read_text())
    assert summary["checked_calls"] == 0 and summary["apis"] == []


@pytest.mark.parametrize("mode", ["no_change", "bit_noise"])
def test_batch_norm_running_statistics_are_updated_once(fresh_debugger, tmp_path, mode):
    g = torch.Generator().manual_seed(2)
    x = torch.randn(16, 4, generator=g)
    reference = torch.nn.BatchNorm1d(4)
    bn = torch.nn.BatchNorm1d(4)
    expected = reference(x)
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode=mode))
    dbg.start()
    out = bn(x)
    dbg.stop()
    assert torch.equal(out, expected)
    assert torch.equal(bn.running_mean, reference.running_mean)
    assert torch.equal(bn.running_var, reference.running_var)
    assert bn.num_batches_tracked.item() == 1


def test_step_folders_as_1_2_1_writes_them(fresh_debugger, tmp_path):
    dbg = fresh_debugger(config_path=write_config(tmp_path, pert_mode="bit_noise"))
    dbg.start()
    cancellation()
    dbg.stop()
    dbg.step()
    rank = tmp_path / "dump" / "step0" / "rank"
    dump = json.loads((rank / "dump.json").read_text())
    assert dump == {"task": "free_benchmark", "level": "L1", "framework": "pytorch",
                    "dump_data_dir": str(rank / "dump_tensor_data"), "data": {}}
    assert (rank / "dump_tensor_data").is_dir() and not any((rank / "dump_tensor_data").iterdir())
    stack = json.loads((rank / "stack.json").read_text())
    assert "Torch.sub.0.forward" in stack and json.loads((rank / "construct.json").read_text()) == {}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_bit_noise_flips_the_lowest_bit_above_the_smallest_normal(dtype):
    # The one-buffer form of bit_noise (perturbation.py) against the plain expression, with the
    # values it must leave alone (NaN, subnormals, zeros) and infinities (flipped, as 1.2.1).
    from msprobe.pytorch.free_benchmark.perturbation import BIT_VIEW, _bit_noise
    finfo = torch.finfo(dtype)
    t = torch.randn(6, 7, generator=torch.Generator().manual_seed(0)).to(dtype)
    t[0, :6] = torch.tensor([float("nan"), float("inf"), -float("inf"), finfo.smallest_normal / 4, 0.0, -0.0])
    t[1, 0] = finfo.smallest_normal
    for x in (t, t.t()):   # contiguous and transposed
        bits = x.view(BIT_VIEW[dtype])
        expected = torch.bitwise_xor(bits, (x.abs() > finfo.smallest_normal).to(bits.dtype))
        got = _bit_noise(x)
        assert got.dtype == dtype and got.shape == x.shape
        assert torch.equal(got.view(BIT_VIEW[dtype]), expected)
    assert torch.equal(t.view(BIT_VIEW[dtype])[0, :6] == _bit_noise(t).view(BIT_VIEW[dtype])[0, :6],
                       torch.tensor([True, False, False, True, True, True]))
