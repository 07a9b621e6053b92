"""The compare engine (msprobe._core.compare_dumps) on real dumps written by our PyTorch dumper:
two runs of a small model, identical or with one layer perturbed, in each dump mode; the table is
checked as 1.2.1 would fill it (verdicts, highlight, Err_message)."""
import json
import os

import torch
import torch.nn as nn
from conftest import rank_dir

from msprobe import _core


class TwoLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def dump_run(debugger_cls, tmp_path, name, task, scale_fc2=1.0, md5=False):
    """One forward/backward step of TwoLayers (fixed weights and input) dumped to tmp_path/name;
    returns the dump.json path. scale_fc2 multiplies fc2's weight: the perturbed op."""
    torch.manual_seed(0)
    model = TwoLayers()
    with torch.no_grad():
        model.fc2.weight.mul_(scale_fc2)
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(1))
    cfg = {"task": task, "dump_path": f"./{name}", "level": "L1"}
    if md5:
        cfg["statistics"] = {"summary_mode": "md5"}
    cfg_path = tmp_path / f"{name}.json"
    cfg_path.write_text(json.dumps(cfg))
    debugger_cls._reset_for_tests()
    dbg = debugger_cls(config_path=str(cfg_path))
    dbg.start()
    loss = model(x).pow(2).sum()
    loss.backward()
    dbg.stop()
    dbg.step()
    debugger_cls._reset_for_tests()
    return os.path.join(rank_dir(tmp_path / name), "dump.json")


def table_dicts(table):
    return [dict(zip(table.header, row)) for row in table.rows()]


def rows_named(rows, prefix):
    return [r for r in rows if r["NPU Name"].startswith(prefix)]


def test_statistics_identical_and_perturbed(fresh_debugger, tmp_path):
    bench = dump_run(fresh_debugger, tmp_path, "bench", "statistics")
    same = dump_run(fresh_debugger, tmp_path, "same", "statistics")
    npu = dump_run(fresh_debugger, tmp_path, "npu", "statistics", scale_fc2=3.0)

    t = _core.compare_dumps(same, bench)
    assert t.mode == "statistics" and t.header[-2:] == ["Result", "Err_message"]
    rows = table_dicts(t)
    assert rows and all(r["Bench Name"] == r["NPU Name"] for r in rows)
    assert all(r["Result"] == "" and r["Err_message"] == "" for r in rows)
    assert all(r["Max diff"] == 0 for r in rows if isinstance(r["NPU max"], float))
    assert set(t.fills) == {""}

    t = _core.compare_dumps(npu, bench)
    rows = table_dicts(t)
    fc2 = rows_named(rows, "Functional.linear.1.forward")
    assert [r["NPU Name"].split(".forward.")[1] for r in fc2] == ["input.0", "input.1", "input.2", "output.0"]
    # the input x is unchanged; the weight and the output are 3 times larger
    assert fc2[0]["Result"] == "" and fc2[0]["Max diff"] == 0 and fc2[0]["MaxRelativeErr"] == "0.0%"
    assert fc2[1]["Result"] == "Warning" and fc2[1]["Err_message"].startswith("Need double check api accuracy.")
    assert fc2[1]["MaxRelativeErr"] == "200.0%" or fc2[1]["MaxRelativeErr"].startswith("199.99")
    assert fc2[3]["Result"] == "Warning"
    # the output's relative max difference is over 0.5: red, with 1.2.1's message appended
    assert t.fills[rows.index(fc2[3])] == "red"
    assert "maximum relative error exceeds 0.5" in fc2[3]["Err_message"]
    assert all(r["Result"] == "" for r in rows_named(rows, "Functional.linear.0.forward"))


def test_tensor_mode_identical_and_perturbed(fresh_debugger, tmp_path):
    bench = dump_run(fresh_debugger, tmp_path, "bench", "tensor")
    same = dump_run(fresh_debugger, tmp_path, "same", "tensor")
    npu = dump_run(fresh_debugger, tmp_path, "npu", "tensor", scale_fc2=3.0)

    t = _core.compare_dumps(same, bench, threads=2)
    assert t.mode == "tensor" and t.header[-1] == "Data_name"
    rows = table_dicts(t)
    tensors = [r for r in rows if r["Data_name"] != "-1"]
    assert tensors
    for r in tensors:
        assert r["Cosine"] in (1.0, "unsupported"), r
        assert r["MaxAbsErr"] == 0 and r["One Thousandth Err Ratio"] in (1.0, "unsupported")
        assert r["Accuracy Reached or Not"] in ("Yes", "None"), r
    assert not any(r["Err_message"].startswith("Dump file") for r in rows)

    progress = []
    t = _core.compare_dumps(npu, bench, threads=2, progress=lambda *a: progress.append(a))
    assert progress and progress[-1][0] == "compare" and progress[-1][1] == progress[-1][2] == t.num_rows
    rows = table_dicts(t)
    fc2 = rows_named(rows, "Functional.linear.1.forward")
    x_row, w_row, out_row = fc2[0], fc2[1], fc2[3]
    assert x_row["Cosine"] == 1.0 and x_row["MaxAbsErr"] == 0.0
    # a scaled tensor keeps its direction: cosine 1, but every element is off by 200%
    assert w_row["Cosine"] == 1.0 and w_row["One Thousandth Err Ratio"] == 0.0
    assert w_row["MaxRelativeErr"] == 2.0 or abs(w_row["MaxRelativeErr"] - 2.0) < 1e-6
    assert out_row["One Thousandth Err Ratio"] == 0.0
    assert out_row["Accuracy Reached or Not"] == ("No" if out_row["MaxAbsErr"] > 1 else "Yes")
    # input ratio 1 > 0.9 and output ratio 0 < 0.6: red, message appended
    assert t.fills[rows.index(out_row)] == "red"
    assert "one thousandth err ratio exceeds 0.9" in out_row["Err_message"]


def test_tensor_mode_missing_file(fresh_debugger, tmp_path):
    bench = dump_run(fresh_debugger, tmp_path, "bench", "tensor")
    npu = dump_run(fresh_debugger, tmp_path, "npu", "tensor")
    data_dir = os.path.join(os.path.dirname(npu), "dump_tensor_data")
    victim = "Functional.linear.0.forward.input.0.pt"
    os.remove(os.path.join(data_dir, victim))
    rows = table_dicts(_core.compare_dumps(npu, bench))
    row = next(r for r in rows if r["NPU Name"] == victim[:-3])
    assert row["Err_message"] == f"Dump file: {victim} not found."
    assert row["Cosine"] == "unsupported" and row["Accuracy Reached or Not"] == "None"


def test_md5_mode(fresh_debugger, tmp_path):
    bench = dump_run(fresh_debugger, tmp_path, "bench", "statistics", md5=True)
    npu = dump_run(fresh_debugger, tmp_path, "npu", "statistics", scale_fc2=3.0, md5=True)
    t = _core.compare_dumps(npu, bench)
    assert t.mode == "md5" and t.header[6:] == ["NPU MD5", "BENCH MD5", "Result"]
    rows = table_dicts(t)
    by_name = {r["NPU Name"]: r for r in rows}
    assert by_name["Functional.linear.1.forward.input.0"]["Result"] == "pass"
    assert by_name["Functional.linear.1.forward.input.1"]["Result"] == "Different"
    assert by_name["Functional.linear.0.forward.input.0"]["NPU MD5"] == \
        by_name["Functional.linear.0.forward.input.0"]["BENCH MD5"]
    statistics = dump_run(fresh_debugger, tmp_path, "stats", "statistics")
    try:
        _core.compare_dumps(npu, statistics)
        raise AssertionError("md5 against statistics must be refused")
    except ValueError as e:
        assert "should both be statistics or md5" in str(e)


def test_written_rows_and_stack(fresh_debugger, tmp_path):
    bench = dump_run(fresh_debugger, tmp_path, "bench", "statistics")
    npu = dump_run(fresh_debugger, tmp_path, "npu", "statistics")
    t = _core.compare_dumps(npu, bench, stack_mode=True)
    assert t.stack_mode and t.header[-1] == "NPU_Stack_Info"
    rows = t.rows()
    first = rows[0]
    assert isinstance(first[-1], str) and first[-1].startswith("['File ")  # str() of the stack list
    assert all(r[-1] == "None" for r in rows[1:3])  # only an op's first input row has it
    written = t.written_rows()
    assert all(not isinstance(c, bool) and c is not None for row in written for c in row)


def test_fuzzy_match_marks_rows_of_other_call_counts(fresh_debugger, tmp_path):
    """An extra torch.relu call before the model shifts the npu's call counts: only fuzzy
    matching pairs Torch.relu.1 with the bench's Torch.relu.0, and tensor mode says so."""
    bench = dump_run(fresh_debugger, tmp_path, "bench", "tensor")
    orig_forward = TwoLayers.forward

    def forward_with_extra_call(self, x):
        torch.relu(torch.ones(3))  # another shape: never matched itself
        return orig_forward(self, x)

    TwoLayers.forward = forward_with_extra_call
    try:
        npu = dump_run(fresh_debugger, tmp_path, "npu", "tensor")
    finally:
        TwoLayers.forward = orig_forward
    exact = table_dicts(_core.compare_dumps(npu, bench))
    fuzzy = table_dicts(_core.compare_dumps(npu, bench, fuzzy_match=True))
    relu_exact = next(r for r in exact if r["NPU Name"] == "Torch.relu.1.forward.input.0")
    relu_fuzzy = next(r for r in fuzzy if r["NPU Name"] == "Torch.relu.1.forward.input.0")
    assert relu_exact["Bench Name"] == "N/A"
    assert relu_fuzzy["Bench Name"] == "Torch.relu.0.forward.input.0"
    assert relu_fuzzy["Cosine"] == 1.0
    assert relu_fuzzy["Err_message"].endswith(" Fuzzy matching data, the comparison accuracy may be affected.")
    same_name = next(r for r in fuzzy if r["NPU Name"] == "Functional.linear.0.forward.input.0")
    assert "Fuzzy" not in same_name["Err_message"]
