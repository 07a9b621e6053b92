"""TrainerMon's behaviour on plain PyTorch: bad configs, the defaults that 1.2.1 got wrong,
Megatron stand-ins, format api, dynamic start and stop, and errors that never stop training."""
import json
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from monitor_checks import losses, read_csv, run_net, the_rank_dir  # noqa: E402
from monitor_net import Net, batch  # noqa: E402

from msprobe import _core  # noqa: E402
from msprobe.pytorch import TrainerMon  # noqa: E402


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MONITOR_OUTPUT_DIR", str(tmp_path / "out"))
    monkeypatch.delenv("DYNAMIC_MONITOR", raising=False)
    return tmp_path


def write_config(path, config):
    with open(path, "w") as f:
        json.dump(config, f)
    return str(path)


def train(model, opt, steps, before_step=None):
    out = []
    for step in range(steps):
        opt.zero_grad()
        loss = (model(batch(step)) * torch.tensor([[1.0, -2.0]])).sum() ** 2
        loss.backward()
        if before_step:
            before_step(model)
        opt.step()
        out.append(loss.item())
    return out


@pytest.mark.parametrize("config, field", [
    ({"wg_distribution": True, "colour": 1}, '"colour" is not a monitor config field'),
    ({"eps": "small"}, '"eps" must be a number'),
    ({"format": "xlsx"}, '"format" "xlsx" is not one of csv, tensorboard, api'),
    ({"alert": {"rules": [{"rule_name": "AnomalyTurbulence", "args": {"threshold": -1.0}}]}},
     '"alert.rules[].args.threshold" must be a number not less than 0'),
    ({"alert": {"rules": [{"rule_name": "Spike", "args": {"threshold": 1.0}}]}}, '"Spike" is not supported'),
    ({"module_ranks": ["0"]}, '"module_ranks[]" must be an integer'),
    ({"wg_distribution": "yes"}, '"wg_distribution" must be true or false'),
    ({"step_interval": 0}, '"step_interval" must be at least 1'),
    ({"targets": ["fc1"]}, '"targets" must be an object'),
])
def test_bad_config_is_one_line_and_training_continues(work, capfd, config, field):
    torch.manual_seed(0)
    model, plain = Net(), Net()
    mon = TrainerMon(write_config(work / "c.json", config))
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon.monitor_gnorm_with_ad(model, optimizer=opt)
    got = train(model, opt, 2)
    want = train(plain, torch.optim.SGD(plain.parameters(), lr=0.125), 2)
    assert got == want
    err = [line for line in capfd.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and field in err[0] and "c.json" in err[0], err
    assert not (work / "out").exists()


def test_unknown_op_is_left_out_with_a_warning(work, capfd):
    cfg = _core.load_monitor_config(write_config(work / "c.json", {"ops": ["max", "median"]}))
    assert list(cfg.ops) == ["max"]
    assert any("median" in w for w in cfg.warnings)


def test_target_matching_no_module_is_named(work, capfd):
    model = Net()
    mon = TrainerMon(write_config(work / "c.json", {"targets": {"block.fc9": {}, "head": {}},
                                                   "xy_distribution": True, "format": "csv"}))
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon.monitor_gnorm_with_ad(model, optimizer=opt)
    err = [line for line in capfd.readouterr().err.splitlines() if "matches no module" in line]
    assert len(err) == 1 and "'block.fc9'" in err[0]
    train(model, opt, 1)
    rows = read_csv(os.path.join(the_rank_dir(work / "out"), "actv_0-0.csv"))
    assert [r[1] for r in rows[1:]] == ["head_0"]


@pytest.mark.parametrize("optim", ["sgd", "adam", "adamw"])
def test_losses_bit_identical_with_everything_on(tmp_path, optim):
    config = {"xy_distribution": True, "wg_distribution": True, "mv_distribution": True,
              "param_distribution": True, "ops": ["min", "max", "norm", "zeros", "nans", "mean", "id"],
              "format": "csv", "alert": {"rules": [{"rule_name": "AnomalyTurbulence", "args": {"threshold": 0.1}},
                                                   ], "dump": True}}
    on = run_net(tmp_path / "on", config, "--optim", optim, "--steps", "5")
    off = run_net(tmp_path / "off", config, "--optim", optim, "--steps", "5", "--no-monitor")
    assert losses(on.stdout) == losses(off.stdout) and len(losses(on.stdout)) == 5
    files = os.listdir(the_rank_dir(tmp_path / "on" / "out"))
    assert "grad_reduced_4-4.csv" in files and "actv_4-4.csv" in files
    assert ("exp_avg_4-4.csv" in files) == (optim != "sgd")   # SGD keeps no moments


def test_main_grad_is_read_where_a_parameter_has_one(work):
    model = Net()
    mon = TrainerMon(write_config(work / "c.json", {"wg_distribution": True, "ops": ["norm"], "format": "csv"}))
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon.monitor_gnorm_with_ad(model, optimizer=opt)
    norms = {}

    def set_main_grad(m):
        for name, p in m.named_parameters():
            p.main_grad = p.grad * 2   # Megatron keeps the gradient here
            norms[name] = torch.linalg.vector_norm(p.main_grad.double()).item()

    train(model, opt, 1, set_main_grad)
    rows = read_csv(os.path.join(the_rank_dir(work / "out"), "grad_reduced_0-0.csv"))
    assert rows[0] == ["vpp_stage", "param_name", "step", "norm"]
    for _, name, _, norm in rows[1:]:
        assert float(norm) == pytest.approx(norms[name], abs=1e-6)


class FakeFloat16Optimizer:
    """A stand-in of Megatron's Float16OptimizerWithFloat16Params: fp32 master copies of the model's
    parameters in float16_groups / fp32_from_float16_groups, an inner torch optimizer over the
    copies, and `state` as Megatron exposes it."""

    def __init__(self, model):
        self.float16_groups = [list(model.parameters())]
        self.fp32_from_float16_groups = [[p.detach().clone().requires_grad_(True) for p in model.parameters()]]
        self.optimizer = torch.optim.Adam(self.fp32_from_float16_groups[0], lr=0.0625)

    @property
    def state(self):
        return self.optimizer.state

    def zero_grad(self):
        for p in self.float16_groups[0]:
            p.grad = None

    def step(self):
        for model_p, master in zip(self.float16_groups[0], self.fp32_from_float16_groups[0]):
            master.grad = model_p.grad.clone()
        self.optimizer.step()
        with torch.no_grad():
            for model_p, master in zip(self.float16_groups[0], self.fp32_from_float16_groups[0]):
                model_p.copy_(master)


@pytest.mark.parametrize("opt_ty", ["Megatron_Float16OptimizerWithFloat16Params",
                                    "Megatron_ChainedFloat16OptimizerWithFloat16Params"])
def test_megatron_mix_precision_moments_come_from_the_master_copies(work, opt_ty):
    model = Net()
    fake = FakeFloat16Optimizer(model)
    wrapped = fake
    if "Chained" in opt_ty:
        class Chained:
            chained_optimizers = [fake]
        wrapped = Chained()
    mon = TrainerMon(write_config(work / "c.json", {"mv_distribution": True, "ops": ["max"], "format": "csv"}),
                     params_have_main_grad=False, opt_ty=opt_ty)
    TrainerMon.set_wrapped_optimizer(wrapped)
    try:
        mon.monitor_gnorm_with_ad(model, optimizer=fake)
        train(model, fake, 2)
    finally:
        TrainerMon.set_wrapped_optimizer(None)
    rows = read_csv(os.path.join(the_rank_dir(work / "out"), "exp_avg_sq_1-1.csv"))
    assert len(rows) == 1 + 6
    # Step 1's pre-step state is the state after step 0 (the fp32 masters').
    names = [n for n, _ in model.named_parameters()]
    assert [r[1] for r in rows[1:]] == names
    assert all(float(r[3]) > 0 for r in rows[1:])


def test_unknown_opt_ty_is_one_line(work, capfd):
    mon = TrainerMon(write_config(work / "c.json", {"wg_distribution": True}), opt_ty="Megatron_Other")
    assert mon.disabled
    err = [line for line in capfd.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "opt_ty 'Megatron_Other'" in err[0]


def test_format_api_returns_the_statistics_and_writes_nothing(work):
    model = Net()
    mon = TrainerMon(write_config(work / "c.json", {"wg_distribution": True, "xy_distribution": True,
                                                   "ops": ["norm", "max"], "format": "api"}))
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon.monitor_gnorm_with_ad(model, optimizer=opt)
    seen = {}

    def grab(m):
        seen["wg"], _ = mon.generate_wgrad_metrics()
        seen["actv"], seen["actv_grad"] = mon.generate_xy_metrics()

    train(model, opt, 1, grab)
    grad = model.head.weight.grad
    stats = seen["wg"]["0:head.weight/rank0/post_grad"]
    assert stats["norm"].item() == pytest.approx(torch.linalg.vector_norm(grad.double()).item())
    assert stats["max"].item() == grad.max().item()
    assert "0:head_0/rank0/output" in seen["actv"] and "0:head_0/rank0/output_grad" in seen["actv_grad"]
    assert not (work / "out").exists() or not any(f.endswith(".csv") for _, _, fs in os.walk(work / "out")
                                                  for f in fs)


def test_dynamic_start_and_stop(work, monkeypatch):
    monkeypatch.setenv("DYNAMIC_MONITOR", "True")
    cfg = work / "c.json"
    write_config(cfg, {"wg_distribution": True, "format": "csv", "switch": False, "collect_times": 2})
    model = Net()
    mon = TrainerMon(str(cfg))
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon.monitor_gnorm_with_ad(model, optimizer=opt)
    train(model, opt, 2)
    assert not (work / "out").exists()
    write_config(cfg, {"wg_distribution": True, "format": "csv", "switch": True, "collect_times": 2})
    os.utime(cfg, (1, 1))   # a new timestamp whatever the clock's resolution
    train(model, opt, 5)    # steps 2..6: switched on after step 2, collects steps 3 and 4
    files = sorted(os.listdir(the_rank_dir(work / "out")))
    assert files == ["grad_reduced_3-3.csv", "grad_reduced_4-4.csv", "grad_unreduced_3-3.csv", "grad_unreduced_4-4.csv"]
    with open(cfg) as f:
        assert json.load(f)["switch"] is False   # turned off when collect_times are done


def test_module_ranks_leaves_other_ranks_alone(work):
    model = Net()
    mon = TrainerMon(write_config(work / "c.json", {"wg_distribution": True, "format": "csv",
                                                   "module_ranks": [1]}))
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon.monitor_gnorm_with_ad(model, optimizer=opt)
    train(model, opt, 2)
    assert not (work / "out").exists()


def test_an_internal_error_is_one_line_and_training_continues(work, monkeypatch, capfd):
    (work / "blocker").write_text("a file where the output folder should go")
    monkeypatch.setenv("MONITOR_OUTPUT_DIR", str(work / "blocker" / "out"))
    torch.manual_seed(0)
    model, plain = Net(), Net()
    mon = TrainerMon(write_config(work / "c.json", {"wg_distribution": True, "format": "csv"}))
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon.monitor_gnorm_with_ad(model, optimizer=opt)
    got = train(model, opt, 3)
    assert got == train(plain, torch.optim.SGD(plain.parameters(), lr=0.125), 3)
    err = [line for line in capfd.readouterr().err.splitlines() if "internal error" in line]
    assert len(err) == 1 and "blocker" in err[0]
    assert mon.disabled


def test_start_step_interval_and_collect_times(work):
    model = Net()
    mon = TrainerMon(write_config(work / "c.json", {"param_distribution": True, "format": "csv", "start_step": 2,
                                                   "step_interval": 3, "collect_times": 2}))
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon.monitor_gnorm_with_ad(model, optimizer=opt, start_iteration=1)
    train(model, opt, 10)   # steps 1..10: 2, 5 collected, then stopped (8 would be next)
    assert sorted(os.listdir(the_rank_dir(work / "out"))) == ["param_2-2.csv", "param_5-5.csv"]


class FakeDistributedOptimizer(FakeFloat16Optimizer):
    """Megatron's DistributedOptimizer stand-in: the same fp32 masters under the names that
    optimizer uses (model_float16_groups / shard_fp32_from_float16_groups)."""

    def __init__(self, model):
        super().__init__(model)
        self.model_float16_groups = self.float16_groups
        self.shard_fp32_from_float16_groups = self.fp32_from_float16_groups


class FakeZero3Optimizer:
    """DeepSpeed ZeRO-3 stand-in on one process: one parameter group whose Adam moments are flat
    tensors in `state` (one entry per group), a parameter's moments being its slice (two ranks:
    zero_net.py)."""

    def __init__(self, model):
        self.params = list(model.parameters())
        self.fp16_partitioned_groups = [self.params]
        n = sum(p.numel() for p in self.params)
        self.flat = torch.zeros(n, requires_grad=True)
        self.fp32_partitioned_groups_flat = [self.flat]
        self.inner = torch.optim.Adam([self.flat], lr=0.0625)

    @property
    def state(self):
        return self.inner.state

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        with torch.no_grad():
            self.flat.copy_(torch.cat([p.detach().reshape(-1) for p in self.params]))
        self.flat.grad = torch.cat([p.grad.reshape(-1) for p in self.params])
        self.inner.step()
        with torch.no_grad():
            offset = 0
            for p in self.params:
                p.copy_(self.flat[offset:offset + p.numel()].view_as(p))
                offset += p.numel()


@pytest.mark.parametrize("opt_ty, fake_class", [("Megatron_DistributedOptimizer", FakeDistributedOptimizer),
                                                ("DeepSpeedZeroOptimizer_Stage3", FakeZero3Optimizer)])
def test_megatron_distributed_and_zero3_moments(work, opt_ty, fake_class):
    model = Net()
    fake = fake_class(model)
    mon = TrainerMon(write_config(work / "c.json", {"mv_distribution": True, "ops": ["max", "norm"],
                                                   "format": "csv"}), params_have_main_grad=False, opt_ty=opt_ty)
    TrainerMon.set_wrapped_optimizer(fake)
    try:
        mon.monitor_gnorm_with_ad(model, optimizer=fake)
        train(model, fake, 1)
        # The moments step 1's pre-step hook sees: each parameter's own (master copy, or slice).
        if opt_ty.startswith("Megatron"):
            moments = [fake.state[m]["exp_avg"] for m in fake.fp32_from_float16_groups[0]]
        else:
            flat, offset, moments = fake.state[fake.flat]["exp_avg"], 0, []
            for p in fake.params:
                moments.append(flat[offset:offset + p.numel()])
                offset += p.numel()
        norms = [torch.linalg.vector_norm(m.double()).item() for m in moments]
        train(model, fake, 1)
    finally:
        TrainerMon.set_wrapped_optimizer(None)
    rows = read_csv(os.path.join(the_rank_dir(work / "out"), "exp_avg_1-1.csv"))
    names = [n for n, _ in model.named_parameters()]
    assert [r[1] for r in rows[1:]] == names
    for row, norm in zip(rows[1:], norms):
        assert float(row[4]) == pytest.approx(norm, abs=1e-6)


@pytest.mark.parametrize("user_hook", ["none", "after_ours"])
def test_grad_unreduced_is_the_gradient_at_the_hook(work, user_hook):
    """grad_unreduced holds the gradient as it is at our post-accumulate hook, as 1.2.1 reads it:
    a user's hook registered after ours that scales the gradient in place must not show there
    (it shows in grad_reduced, read before the step). Guards any later attempt to read the
    gradients after the hook (deferred or on another thread)."""
    torch.manual_seed(0)
    model = Net()
    mon = TrainerMon(write_config(work / "c.json", {"wg_distribution": True, "format": "csv",
                                                   "ops": ["min", "max", "norm"], "ndigits": 12}))
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon.monitor_gnorm_with_ad(model, optimizer=opt)
    factor = 1.0
    if user_hook == "after_ours":
        factor = 4.0
        def scale(p):
            p.grad.mul_(4.0)
        for p in model.parameters():
            p.register_post_accumulate_grad_hook(scale)
    train(model, opt, 3)
    rank_dir = the_rank_dir(work / "out")
    for step in range(3):
        unreduced = {r[1]: r[3:] for r in read_csv(os.path.join(rank_dir, f"grad_unreduced_{step}-{step}.csv"))[1:]}
        reduced = {r[1]: r[3:] for r in read_csv(os.path.join(rank_dir, f"grad_reduced_{step}-{step}.csv"))[1:]}
        assert len(unreduced) == len(reduced) == len(list(model.parameters()))
        for name, values in reduced.items():
            before = [float(v) * factor for v in unreduced[name]]
            assert [float(v) for v in values] == pytest.approx(before, rel=1e-9, abs=1e-12), (step, name)
