"""Bad input to the PyTorch API: one clear line naming what is wrong, never a traceback from
inside the probe, and training keeps working."""
import pytest
import torch

from msprobe import _core
from msprobe.core.errors import MsprobeException
from msprobe.pytorch import seed_all


@pytest.mark.parametrize("kwargs,pattern", [
    (dict(task=3), "'task' must be a str"),
    (dict(level=["L1"]), "'level' must be a str"),
    (dict(dump_path=5), "'dump_path' must be a str"),
    (dict(config_path=1.5), "'config_path' must be a str"),
    (dict(step="1"), "'step' must be a list"),
    (dict(model="net"), "torch.nn.Module"),
    (dict(task="run_ut"), "not supported"),
])
def test_constructor_arguments(fresh_debugger, kwargs, pattern):
    kwargs.setdefault("dump_path", "./dump")
    with pytest.raises(MsprobeException, match=pattern) as e:
        fresh_debugger(**kwargs)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("how", ["config", "argument"])
def test_level_l2_is_refused_as_unsupported(fresh_debugger, tmp_path, how):
    # 1.2.1's PyTorch L2 is torch_npu's ACL kernel dump; it is not implemented here, so the
    # message must not send the user to install torch_npu (the raise does not depend on it).
    cfg = tmp_path / "l2.json"
    cfg.write_text('{"task": "tensor", "dump_path": "./dump", "level": "%s",'
                   ' "tensor": {"list": ["Functional.conv2d.0.forward"]}}' % ("L2" if how == "config" else "L1"))
    with pytest.raises(MsprobeException) as e:
        fresh_debugger(config_path=str(cfg), **({"level": "L2"} if how == "argument" else {}))
    msg = str(e.value)
    assert msg == ("level 'L2' (kernel dump: the ACL dump of one API's NPU kernels through torch_npu) "
                   "is not supported by this version of msprobe, with or without torch_npu; "
                   "use L1 (or L0, mix) to dump the API's inputs and outputs")
    assert "needs torch_npu" not in msg
    assert not (tmp_path / "dump").exists()  # refused before anything is written


@pytest.mark.parametrize("kwargs,field", [
    (dict(task="dump"), "task"),
    (dict(level="L3"), "level"),
    (dict(step=[-1]), "step"),
    (dict(step=["3"]), "step"),
    (dict(dump_path=""), "dump_path"),
    (dict(dump_path="./dump path"), "dump_path"),
])
def test_constructor_values_validated_by_core(fresh_debugger, kwargs, field):
    kwargs.setdefault("dump_path", "./dump")
    with pytest.raises(_core.ConfigError, match=field) as e:
        fresh_debugger(**kwargs)
    assert "\n" not in str(e.value)


def test_missing_config_file(fresh_debugger):
    with pytest.raises(_core.MsprobeFileError, match="nope.json"):
        fresh_debugger(config_path="./nope.json")


def test_api_before_construction(fresh_debugger):
    with pytest.raises(MsprobeException, match="PrecisionDebugger must be created"):
        fresh_debugger.start()


@pytest.mark.parametrize("args,pattern", [
    (dict(seed=-1), "seed"), (dict(seed=2**32), "seed"), (dict(seed="1"), "seed"),
    (dict(mode=1), "mode"), (dict(rm_dropout="yes"), "rm_dropout"),
])
def test_seed_all_arguments(args, pattern):
    with pytest.raises(MsprobeException, match=pattern):
        seed_all(**args)


def test_seed_all_makes_runs_repeatable_and_removes_dropout():
    seed_all(seed=7, mode=False, rm_dropout=True)
    a = torch.randn(4)
    x = torch.ones(1000)
    assert torch.equal(torch.nn.functional.dropout(x, p=0.5, training=True), x)
    seed_all(seed=7, mode=False, rm_dropout=True)
    assert torch.equal(torch.randn(4), a)


def test_malformed_api_list(tmp_path):
    from msprobe.pytorch.api_wrapper import load_api_list
    bad = tmp_path / "ops.yaml"
    bad.write_text("tensor: relu\n")
    with pytest.raises(ValueError, match="'tensor' must be a list"):
        load_api_list(str(bad))
    bad.write_text("tensor: [relu\n")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_api_list(str(bad))


def test_internal_hook_error_disables_probe_and_training_continues(fresh_debugger, capfd, tmp_path,
                                                                    monkeypatch):
    import json
    # a fault of the probe where Torch.full's output is recorded (the testing aid, read when the
    # debugger's session is made)
    monkeypatch.setenv("MSPROBE_TEST_FAULT", "Torch.full")
    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    dbg.start()
    torch.relu(torch.ones(2))                                    # recorded
    y = torch.full((3,), 2.0, dtype=torch.float16)               # the probe fails here
    z = torch.relu(torch.ones(2))                                # training goes on
    dbg.stop()
    dbg.step()
    assert torch.equal(y, torch.full((3,), 2.0, dtype=torch.float16))
    assert z.sum().item() == 2.0
    err = capfd.readouterr().err
    errors = [line for line in err.splitlines() if "ERROR" in line]
    assert len(errors) == 1 and "injected fault" in errors[0] and "disabled" in errors[0], err
    doc = json.load(open(tmp_path / "dump" / "step0" / "rank" / "dump.json"))
    assert "Torch.relu.0.forward" in doc["data"]                 # earlier records survive
    assert "Torch.relu.1.forward" not in doc["data"]
    assert doc["probe_disabled"]["first_unrecorded_call"] == "Torch.full.0.forward"


def test_value_whose_rendering_raises_is_recorded_as_null(fresh_debugger, capfd, tmp_path):
    """An object whose Python-side rendering raises is null in the record; recording goes on."""
    import json

    import numpy as np

    from msprobe.pytorch.hook_state import STATE

    def broken_encoder(value, kwarg_name):
        raise RuntimeError("boom")

    dbg = fresh_debugger(task="statistics", dump_path="./dump", level="L1")
    STATE.session.set_types(torch.Size, np.generic, broken_encoder, None, "")
    dbg.start()
    torch.full((3,), 2.0, dtype=torch.float16)                   # dtype= goes to the encoder
    torch.relu(torch.ones(2))
    dbg.stop()
    dbg.step()
    assert "ERROR" not in capfd.readouterr().err
    data = json.load(open(tmp_path / "dump" / "step0" / "rank" / "dump.json"))["data"]
    assert data["Torch.full.0.forward"]["input_kwargs"]["dtype"] is None
    assert "Torch.relu.0.forward" in data


def test_unknown_api_list_section_is_refused(tmp_path):
    from msprobe.core.api_catalogue import load_api_catalogue
    bad = tmp_path / "ops.yaml"
    bad.write_text("tensor:\n  - add\nmint.fft:\n  - fft\n")
    with pytest.raises(ValueError, match=r"ops.yaml: unknown section 'mint.fft'; allowed: functional"):
        load_api_catalogue("pytorch", str(bad))
    full = load_api_catalogue("pytorch")
    assert {"functional", "tensor", "torch", "distributed"} <= set(full)
    assert "relu" in full["torch"] and "add" in full["tensor"]
