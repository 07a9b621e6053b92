"""PyTorch data dump end to end: levels, tasks, filters, formats (real torch, real files)."""
import os
import zlib

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import load_dump, rank_dir
from dump_models import ProbeTestNet, make_inputs

TENSOR_KEYS = ["type", "dtype", "shape", "Max", "Min", "Mean", "Norm", "requires_grad"]

# Every test runs on the host path and on the device path forced onto CPU tensors.
pytestmark = pytest.mark.usefixtures("device_path")


def train_steps(debugger, model, steps=1, use_model=True):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for s in range(steps):
        x, y = make_inputs(seed=s)
        debugger.start(model if use_model else None)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        debugger.stop()
        debugger.step()


def test_l1_statistics_layout_and_entries(fresh_debugger, tmp_path):
    torch.manual_seed(0)
    model = ProbeTestNet()
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    train_steps(dbg, model, steps=2)
    for step in (0, 1):
        dump, stack, construct = load_dump(tmp_path / "dump", step)
        assert list(dump) == ["task", "level", "framework", "dump_data_dir", "data"]
        assert dump["task"] == "statistics" and dump["level"] == "L1"
        assert dump["framework"] == "pytorch" and dump["dump_data_dir"] is None
        data = dump["data"]
        for name in ("Functional.linear.0.forward", "Torch.relu.0.forward", "Torch.cat.0.forward",
                     "Tensor.__getitem__.0.forward", "Functional.linear.0.backward",
                     "Functional.cross_entropy.0.forward"):
            assert name in data, name
        lin = data["Functional.linear.0.forward"]
        assert list(lin) == ["input_args", "input_kwargs", "output"]
        t = lin["input_args"][0]
        assert list(t)[:8] == TENSOR_KEYS
        assert t["dtype"] == "torch.float32" and t["shape"] == [4, 8]
        # Forward entries have stacks, backward entries none; L1 has no construct tree.
        assert "Functional.linear.0.forward" in stack
        assert not any(k.endswith("backward") for k in stack)
        assert construct == {}
    # A module used twice: the second Functional.linear call of "shared" got index 2.
    assert "Functional.linear.2.forward" in data


def test_statistics_values_match_torch(fresh_debugger, tmp_path):
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    x = torch.tensor([[1.0, -2.0], [3.5, 0.25]])
    dbg.start()
    torch.relu(x)
    dbg.stop()
    dbg.step()
    dump, _, _ = load_dump(tmp_path / "dump")
    t = dump["data"]["Torch.relu.0.forward"]["input_args"][0]
    assert t["Max"] == 3.5 and t["Min"] == -2.0
    assert t["Mean"] == pytest.approx(x.mean().item(), rel=1e-7)
    assert t["Norm"] == pytest.approx(x.norm().item(), rel=1e-7)
    assert t["requires_grad"] is False


def test_md5_is_crc32_of_tensor_bytes(fresh_debugger, tmp_path):
    x = torch.randn(5, 3)
    cfg = tmp_path / "config.json"
    cfg.write_text('{"task": "statistics", "dump_path": "./dump", "level": "L1",'
                   ' "statistics": {"summary_mode": "md5"}}')
    dbg = fresh_debugger(config_path=str(cfg))
    dbg.start()
    torch.tanh(x)
    dbg.stop()
    dbg.step()
    dump, _, _ = load_dump(tmp_path / "dump")
    t = dump["data"]["Torch.tanh.0.forward"]["input_args"][0]
    assert t["md5"] == f"{zlib.crc32(x.numpy().tobytes()):08x}"


def test_tensor_task_writes_loadable_pt_files(fresh_debugger, tmp_path):
    dbg = fresh_debugger(task="tensor", dump_path="./dump", level="L1")
    a = torch.randn(3, 4, dtype=torch.bfloat16)
    b = torch.randn(4, 2, dtype=torch.bfloat16)
    dbg.start()
    out = torch.matmul(a, b)
    dbg.stop()
    dbg.step()
    dump, _, _ = load_dump(tmp_path / "dump")
    d = rank_dir(tmp_path / "dump")
    assert dump["dump_data_dir"] == "./dump/step0/rank/dump_tensor_data"   # as the original
    entry = dump["data"]["Torch.matmul.0.forward"]
    names = [entry["input_args"][0]["data_name"], entry["input_args"][1]["data_name"],
             entry["output"][0]["data_name"]]
    assert names == ["Torch.matmul.0.forward.input.0.pt", "Torch.matmul.0.forward.input.1.pt",
                     "Torch.matmul.0.forward.output.0.pt"]
    for name, ref in zip(names, (a, b, out)):
        loaded = torch.load(os.path.join(d, "dump_tensor_data", name), weights_only=True)
        assert loaded.dtype == torch.bfloat16 and torch.equal(loaded, ref)
    mode = os.stat(os.path.join(d, "dump_tensor_data", names[0])).st_mode & 0o777
    assert mode == 0o640


def test_l0_modules_parameters_and_grads(fresh_debugger, tmp_path):
    torch.manual_seed(0)
    model = ProbeTestNet()
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L0")
    train_steps(dbg, model)
    dump, stack, construct = load_dump(tmp_path / "dump")
    data = dump["data"]
    assert not any(k.startswith(("Functional.", "Torch.", "Tensor.")) for k in data)
    fwd = data["Module.fc1.Linear.forward.0"]
    assert list(fwd) == ["input_args", "input_kwargs", "output", "parameters"]
    assert set(fwd["parameters"]) == {"weight", "bias"}
    assert "Module.shared.Linear.forward.1" in data          # second use of the module
    assert "Module.shared.Linear.backward.1" in data
    grads = data["Module.fc1.Linear.parameters_grad"]
    assert grads["weight"][0]["shape"] == [8, 8]
    # SGD does not clear .grad: it still holds the gradient the hook recorded.
    assert grads["weight"][0]["Norm"] == pytest.approx(model.fc1.weight.grad.norm().item(), rel=1e-6)
    # Nested modules record their parent call in construct.json.
    assert construct["Module.heads.a.Linear.forward.0"] == "Module.heads.TwoHeads.forward.0"
    assert construct["Module.fc1.Linear.forward.0"] is None
    assert "Module.heads.TwoHeads.forward.0" in stack


def test_mix_records_api_parents(fresh_debugger, tmp_path):
    torch.manual_seed(0)
    model = ProbeTestNet()
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="mix")
    train_steps(dbg, model)
    dump, _, construct = load_dump(tmp_path / "dump")
    assert "Module.fc1.Linear.forward.0" in dump["data"]
    assert "Functional.linear.0.forward" in dump["data"]
    assert construct["Functional.linear.0.forward"] == "Module.fc1.Linear.forward.0"
    assert construct["Torch.relu.0.forward"] is None   # after the first module returned


def test_list_filter_is_a_substring_match(fresh_debugger, tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text('{"task": "statistics", "dump_path": "./dump", "level": "L1",'
                   ' "statistics": {"list": ["relu"]}}')
    torch.manual_seed(0)
    dbg = fresh_debugger(config_path=str(cfg))
    train_steps(dbg, ProbeTestNet(), use_model=False)
    dump, _, _ = load_dump(tmp_path / "dump")
    assert set(dump["data"]) == {"Torch.relu.0.forward", "Torch.relu.0.backward"}


def test_api_scope_range_end_contributes_inputs_only(fresh_debugger, tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text('{"task": "statistics", "dump_path": "./dump", "level": "L1", "statistics":'
                   ' {"scope": ["Torch.relu.0.forward", "Tensor.__mul__.0.forward"]}}')
    dbg = fresh_debugger(config_path=str(cfg))
    x = torch.randn(3)
    dbg.start()
    torch.sigmoid(torch.relu(x) + 1) * 2
    torch.relu(x)
    dbg.stop()
    dbg.step()
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert list(data) == ["Torch.relu.0.forward", "Tensor.__add__.0.forward",
                          "Torch.sigmoid.0.forward", "Tensor.__mul__.0.forward"]
    assert list(data["Tensor.__mul__.0.forward"]) == ["input_args", "input_kwargs"]


@pytest.mark.parametrize("mode,expect", [
    (["forward", "input"], {"forward": ["input_args", "input_kwargs"], "backward": None}),
    (["backward"], {"forward": None, "backward": ["input", "output"]}),
    (["backward", "input"], {"forward": None, "backward": ["input"]}),
])
def test_data_mode(fresh_debugger, tmp_path, mode, expect):
    cfg = tmp_path / "config.json"
    cfg.write_text('{"task": "statistics", "dump_path": "./dump", "level": "L1",'
                   ' "statistics": {"data_mode": %s}}' % str(mode).replace("'", '"'))
    dbg = fresh_debugger(config_path=str(cfg))
    x = torch.randn(3, requires_grad=True)
    dbg.start()
    torch.tanh(x).sum().backward()
    dbg.stop()
    dbg.step()
    data = load_dump(tmp_path / "dump")[0]["data"]
    for direction, keys in expect.items():
        name = f"Torch.tanh.0.{direction}"
        if keys is None:
            assert name not in data
        else:
            assert list(data[name]) == keys


def test_step_selection(fresh_debugger, tmp_path):
    torch.manual_seed(0)
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1", step=[1])
    train_steps(dbg, ProbeTestNet(), steps=3, use_model=False)
    assert sorted(os.listdir(tmp_path / "dump")) == ["step1"]


def test_value_encodings(fresh_debugger, tmp_path):
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    dbg.start()
    torch.full((2, 2), 1.5, dtype=torch.float16, device="cpu")
    x = torch.arange(6.0).reshape(2, 3)
    x[:, 0:2]
    x[..., 1]
    torch.tensor(3) + torch.tensor(4)
    dbg.stop()
    dbg.step()
    data = load_dump(tmp_path / "dump")[0]["data"]
    full = data["Torch.full.0.forward"]
    assert full["input_args"][0] == [{"type": "int", "value": 2}, {"type": "int", "value": 2}]
    assert full["input_args"][1] == {"type": "float", "value": 1.5}
    assert full["input_kwargs"]["dtype"] == {"type": "torch.dtype", "value": "torch.float16"}
    sl = data["Tensor.__getitem__.0.forward"]["input_args"][1]
    assert sl == [{"type": "slice", "value": [None, None, None]},
                  {"type": "slice", "value": [0, 2, None]}]
    el = data["Tensor.__getitem__.1.forward"]["input_args"][1]
    assert el[0] == {"type": "ellipsis", "value": "..."}
    add = data["Tensor.__add__.0.forward"]
    assert add["input_args"][0]["Max"] == 3 and isinstance(add["input_args"][0]["Max"], int)


def test_special_values_statistics(fresh_debugger, tmp_path):
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    dbg.start()
    torch.abs(torch.tensor([1.0, float("inf"), -2.0, float("nan")]))
    torch.logical_not(torch.tensor([True, False]))
    torch.abs(torch.zeros(0, 3))
    dbg.stop()
    dbg.step()
    data = load_dump(tmp_path / "dump")[0]["data"]
    t = data["Torch.abs.0.forward"]["input_args"][0]
    assert all(np.isnan(t[k]) for k in ("Max", "Min", "Mean", "Norm"))
    assert t["Max_except_inf_nan"] == 1.0 and t["Min_except_inf_nan"] == -2.0
    b = data["Torch.logical_not.0.forward"]["input_args"][0]
    assert b["Max"] is True and b["Min"] is False and b["Mean"] is None and b["Norm"] is None
    e = data["Torch.abs.1.forward"]["input_args"][0]
    assert [e[k] for k in ("Max", "Min", "Mean", "Norm")] == [None] * 4


def test_missing_model_and_wrong_model_type(fresh_debugger):
    from msprobe.core.errors import MsprobeException
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L0")
    with pytest.raises(MsprobeException, match="missing the parameter 'model'"):
        dbg.start()
    with pytest.raises(MsprobeException, match="torch.nn.Module"):
        dbg.start(model="not a model")
    with pytest.raises(MsprobeException, match="torch.nn.Module"):
        dbg.start(model=[torch.nn.Linear(2, 2), 3])


def test_probe_on_but_dump_off_records_nothing(fresh_debugger, tmp_path):
    fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    torch.relu(torch.randn(3))          # wrappers installed, switch off
    assert not (tmp_path / "dump").exists()


def test_enable_dataloader_steps_per_batch(tmp_path):
    from conftest import run_python
    code = ("import torch\nfrom msprobe.pytorch import PrecisionDebugger\n"
            "import json\njson.dump({'task': 'statistics', 'dump_path': './dump', 'level': 'L1',"
            " 'enable_dataloader': True}, open('c.json', 'w'))\n"
            "d = PrecisionDebugger(config_path='c.json')\n"
            "loader = torch.utils.data.DataLoader(torch.arange(6.0).reshape(3, 2), batch_size=1)\n"
            "for batch in loader:\n"
            "    torch.relu(batch)\n")
    run_python(code, cwd=tmp_path)
    assert sorted(os.listdir(tmp_path / "dump")) == ["step0", "step1", "step2"]
    for s in range(3):
        assert "Torch.relu.0.forward" in load_dump(tmp_path / "dump", s)[0]["data"]


def test_summary_command(fresh_debugger, tmp_path):
    from conftest import run_python
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    dbg.start()
    torch.relu(torch.ones(2))
    dbg.stop()
    dbg.step()
    r = run_python("import sys; from msprobe.cli import main; sys.exit(main())", "summary", "dump",
                   cwd=tmp_path)
    assert "step0/rank: task statistics, level L1, 1 entries (1 forward" in r.stdout
    bad = run_python("import sys; from msprobe.cli import main; sys.exit(main())", "summary",
                     "missing", cwd=tmp_path, check=False)
    assert bad.returncode == 1 and "missing" in bad.stderr and "Traceback" not in bad.stderr


def test_module_dump_records_one_module_as_a_unit(fresh_debugger, tmp_path):
    from msprobe.pytorch import module_dump, module_dump_end
    torch.manual_seed(0)
    model = ProbeTestNet()
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    dbg.start()
    module_dump(model.heads, "MyHeads")
    x = torch.randn(4, 8, requires_grad=True)
    p, q = model.heads(x)
    (p.sum() + q.sum()).backward()
    module_dump_end()
    torch.relu(x)                      # API recording is back after module_dump_end
    dbg.stop()
    dbg.step()
    data = load_dump(tmp_path / "dump")[0]["data"]
    assert "Module.MyHeads.TwoHeads.forward.0" in data
    assert "Module.MyHeads.TwoHeads.backward.0" in data
    assert len(data["Module.MyHeads.TwoHeads.forward.0"]["output"]) == 2
    assert not any(k.startswith("Functional.linear") for k in data)   # APIs inside not dumped
    assert "Torch.relu.0.forward" in data


def test_meta_and_unsupported_dtype_tensors(fresh_debugger, tmp_path):
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    dbg.start()
    torch.relu(torch.empty(2, 3, device="meta"))
    torch.flatten(torch.ones(3, dtype=torch.uint16))
    dbg.stop()
    dbg.step()
    data = load_dump(tmp_path / "dump")[0]["data"]
    meta = data["Torch.relu.0.forward"]["input_args"][0]
    assert meta["shape"] == [2, 3] and meta["Max"] is None and meta["Norm"] is None
    assert data["Torch.flatten.0.forward"]["input_args"] == [None]


def test_tensor_saved_twice_is_linked_and_changed_tensor_is_not(fresh_debugger, tmp_path):
    dbg = fresh_debugger(task="tensor", dump_path="./dump", level="L1")
    x = torch.randn(64, 64)
    dbg.start()
    y = torch.tanh(x)             # output y ...
    torch.sigmoid(y)              # ... is the next input: same bytes, one file on disk
    y.mul_(2)                     # in-place: y changes
    torch.relu(y)                 # a new file with the new values
    dbg.stop()
    dbg.step()
    d = os.path.join(rank_dir(tmp_path / "dump"), "dump_tensor_data")
    out = os.path.join(d, "Torch.tanh.0.forward.output.0.pt")
    same = os.path.join(d, "Torch.sigmoid.0.forward.input.0.pt")
    changed = os.path.join(d, "Torch.relu.0.forward.input.0.pt")
    assert os.stat(out).st_ino == os.stat(same).st_ino
    assert os.stat(changed).st_ino != os.stat(out).st_ino
    assert torch.equal(torch.load(same, weights_only=True), torch.tanh(x))
    assert torch.equal(torch.load(changed, weights_only=True), y)
