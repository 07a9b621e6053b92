"""mg_direction and ur_distribution (1.2.1's TrainerMon): the gradients' sign matches with Adam's
exp_avg in the "other" files, and Adam's update and ratio heat maps in TensorBoard; against
1.2.1's files of the same run (tests/fixtures/monitor_1.2.1, make_monitor_fixtures.py), and the
core's kernels against torch's own formula and torch.histc. Losses are those of the run without
the monitor, bit for bit."""
import io
import json
import os
import sys

import pytest
import torch
from conftest import TESTS_DIR, run_python
from tolerances import kernel_rtol

from msprobe import _core

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_monitor_fixtures import CASES, IMAGE_PARAM, ZERO_MG_CASES, ZERO_MG_CONFIG  # noqa: E402
from monitor_checks import assert_csv_as_original, assert_same_steps, losses, run_net, the_rank_dir  # noqa: E402

FIXTURES = os.path.join(TESTS_DIR, "fixtures", "monitor_1.2.1")
ALL_OPS = ["min", "max", "norm", "zeros", "nans", "mean"]
# mg_direction counts signs: on another CPU a kernel's last bit can flip the sign of a gradient
# element near zero, which moves a share by 1/numel (1/24 for the smallest monitored parameter);
# up to two such flips are allowed against 1.2.1's files.
MG_FLIP_TOL = 2 / 24 + 1e-6


def torch_sign_matches(grad, exp_avg):
    """1.2.1's formula, in torch."""
    return ((grad.sign() * exp_avg.sign()).sum() / exp_avg.numel() + 1) / 2


def torch_update_ratio(exp_avg, exp_avg_sq, step, beta1, beta2, eps):
    """1.2.1's update and ratio, in torch."""
    m_hat = exp_avg / (1 - beta1 ** step)
    v_hat = exp_avg_sq / (1 - beta2 ** step)
    return m_hat / (torch.sqrt(v_hat) + eps), m_hat / torch.sqrt(v_hat)


@pytest.mark.parametrize("as_121", [False, True], ids=["defaults", "121-arguments"])
def test_mg_direction_as_original(tmp_path, as_121, device_path):
    config, net_args = CASES["mg_direction"]
    run = run_net(tmp_path / "on", config, *net_args, *(["--as-121"] if as_121 else []))
    plain = run_net(tmp_path / "off", config, *net_args, "--no-monitor")
    assert losses(run.stdout) == losses(plain.stdout)          # training unchanged, bit for bit
    rank_dir = the_rank_dir(tmp_path / "on" / "out")
    assert_csv_as_original(rank_dir, os.path.join(FIXTURES, "mg_direction", "rank0"), 6, abs_tol=MG_FLIP_TOL)
    with open(os.path.join(rank_dir, "other_0-0.csv")) as f:
        assert f.read().splitlines()[1] == "0,block.fc1.weight,0,1.0,1.0,1.0,0.0,0.0,1.0"   # step 0: 1.0


def _images(rank_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    acc = EventAccumulator(rank_dir, size_guidance={"images": 0, "scalars": 0})
    acc.Reload()
    return acc


def _pixels(png):
    from PIL import Image
    return Image.open(io.BytesIO(png)).convert("RGBA").tobytes()


@pytest.mark.parametrize("as_121", [False, True], ids=["defaults", "121-arguments"])
def test_ur_distribution_heatmaps_as_original(tmp_path, as_121, device_path):
    """The same heat map images (tags, steps, sizes; pixel for pixel for one parameter) and
    mg_direction scalars as 1.2.1; opt_ty None works (1.2.1 refused ur_distribution with it)."""
    pytest.importorskip("tensorboard")
    config, net_args = CASES["ur_distribution"]
    run = run_net(tmp_path / "on", config, *net_args, *(["--as-121"] if as_121 else []))
    plain = run_net(tmp_path / "off", config, *net_args, "--no-monitor")
    assert losses(run.stdout) == losses(plain.stdout)
    assert "not supported" not in run.stderr
    acc = _images(the_rank_dir(tmp_path / "on" / "out"))
    with open(os.path.join(FIXTURES, "ur_distribution", "images.json")) as f:
        theirs = json.load(f)
    assert sorted(acc.Tags()["images"]) == sorted(theirs)
    for t, events in theirs.items():
        assert [[e.step, e.width, e.height] for e in acc.Images(t)] == events, t
    for what in ("adam_update", "adam_ratio"):
        t = f"{IMAGE_PARAM}/{what}"
        with open(os.path.join(FIXTURES, "ur_distribution", "images", t.replace("/", "~") + ".png"), "rb") as f:
            assert _pixels(acc.Images(t)[-1].encoded_image_string) == _pixels(f.read()), t
    with open(os.path.join(FIXTURES, "ur_distribution", "tensorboard.json")) as f:
        scalars = json.load(f)
    assert sorted(acc.Tags()["scalars"]) == sorted(scalars)
    for t, points in scalars.items():
        ours = [[e.step, e.value] for e in acc.Scalars(t)]
        assert [s for s, _ in ours] == [s for s, _ in points] == [1, 3, 5], t
        for (_, a), (_, b) in zip(ours, points):
            assert abs(a - b) <= 4 * kernel_rtol("float32") * max(abs(a), abs(b)), (t, a, b)


def test_ur_distribution_needs_tensorboard(tmp_path):
    """With csv files (1.2.1 fails there) one line says so; mg_direction is still written."""
    config = {"ur_distribution": True, "mg_direction": True, "ops": ["mean"], "format": "csv"}
    run = run_net(tmp_path / "on", config, "--steps", "2")
    plain = run_net(tmp_path / "off", config, "--steps", "2", "--no-monitor")
    assert losses(run.stdout) == losses(plain.stdout)
    lines = [line for line in run.stderr.splitlines() if "ur_distribution" in line]
    assert len(lines) == 1 and '"format": "tensorboard"' in lines[0] and '"csv"' in lines[0], lines
    assert sorted(os.listdir(the_rank_dir(tmp_path / "on" / "out"))) == ["other_0-0.csv", "other_1-1.csv"]


def test_mg_direction_without_adam_moments_is_one(tmp_path):
    """SGD keeps no exp_avg: every step reads 1.0 (nothing to compare with; 1.2.1 fails)."""
    config = {"mg_direction": True, "ops": ["mean"], "format": "csv"}
    run = run_net(tmp_path, config, "--optim", "sgd", "--steps", "2")
    with open(os.path.join(the_rank_dir(tmp_path / "out"), "other_1-1.csv")) as f:
        rows = f.read().splitlines()
    assert rows[0] == "vpp_stage,param_name,step,mean" and len(rows) == 7
    assert all(r.endswith(",1,1.0") for r in rows[1:]), rows
    assert losses(run.stdout) == losses(run_net(tmp_path / "off", config, "--optim", "sgd", "--steps", "2",
                                                "--no-monitor").stdout)


def _writer(tmp_path):
    return _core.MonitorWriter(str(tmp_path), ALL_OPS, 1e-8, 6, 1, [], False, 0)


def test_sign_matches_as_torch(tmp_path):
    """One call for every parameter; strided and float64 tensors, zeros and NaN (torch.sign of
    NaN is 0: half a match) as 1.2.1's formula gives them, bit for bit in float32."""
    g = torch.Generator().manual_seed(3)
    grads = [torch.randn(1000, generator=g), torch.randn(37, 5, generator=g).t(),
             torch.tensor([0.0, float("nan"), 1.0, -1.0]), torch.randn(9, dtype=torch.float64, generator=g),
             torch.randn(5000, generator=g)[::3]]
    moments = [torch.randn(1000, generator=g), torch.randn(5, 37, generator=g),
               torch.tensor([1.0, 1.0, 0.0, -1.0]), torch.randn(9, dtype=torch.float64, generator=g),
               -grads[4].clone()]
    w = _writer(tmp_path)
    w.add_sign_matches("other", [f"p{i}" for i in range(5)] + ["first"], grads + [grads[0]], moments + [None])
    flushed = w.pending("other")
    assert flushed.tags == ["p0", "p1", "p2", "p3", "p4", "first"]
    for values, grad, m in zip(flushed.values, grads, moments):
        expected = torch_sign_matches(grad, m).item()
        mn, mx, norm, zeros, nans, mean = values
        assert mn == mx == mean == expected and norm == abs(expected) and nans == 0
        assert zeros == (1.0 if expected == 0 else 0.0)
    assert flushed.values[2][0] == 0.625 and flushed.values[4][0] == 0.0
    assert flushed.values[5] == [1.0, 1.0, 1.0, 0.0, 0.0, 1.0]      # no exp_avg yet


def test_sign_matches_size_mismatch_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="mg_direction: the gradient has 3 elements, exp_avg 4"):
        _writer(tmp_path).add_sign_matches("other", ["p"], [torch.zeros(3)], [torch.zeros(4)])


@pytest.mark.parametrize("optimizer", [torch.optim.Adam, torch.optim.AdamW])
def test_heatmap_histograms_as_torch_histc(optimizer):
    """The core's update and ratio histograms of real Adam / AdamW state after some steps equal
    torch.histc(30 bins, [-1, 1]) of 1.2.1's torch formula; a column per call."""
    g = torch.Generator().manual_seed(5)
    params = [torch.nn.Parameter(torch.randn(3000, generator=g)), torch.nn.Parameter(torch.randn(40, 50, generator=g))]
    opt = optimizer(params, lr=0.01, betas=(0.8, 0.99), eps=1e-3)
    heatmaps = _core.AdamHeatmaps()
    for step in range(1, 4):
        for p in params:
            p.grad = torch.randn(p.shape, generator=g) * (0.01 if step == 2 else 1)
        opt.step()
        states = [opt.state[p] for p in params]
        heatmaps.add(["u0", "u1"], ["r0", "r1"], [s["exp_avg"] for s in states],
                     [s["exp_avg_sq"].t() if s["exp_avg_sq"].dim() == 2 else s["exp_avg_sq"] for s in states][:1]
                     + [states[1]["exp_avg_sq"]], torch.stack([s["step"] for s in states]), 0.8, 0.99, 1e-3)
        taken = heatmaps.take()
        assert [h.tag for h in taken] == ["u0", "u1", "r0", "r1"]
        for i, s in enumerate(states):
            update, ratio = torch_update_ratio(s["exp_avg"], s["exp_avg_sq"], s["step"], 0.8, 0.99, 1e-3)
            for heatmap, values in ((taken[i], update), (taken[2 + i], ratio)):
                counts = torch.tensor(heatmap.counts, dtype=torch.float32)
                assert counts.shape == (_core.HEATMAP_BINS, step)
                assert torch.equal(counts[:, -1], torch.histc(values, 30, -1, 1)), (heatmap.tag, step)
    assert heatmaps.take() == []


def test_histc_bins_at_the_edges_as_torch():
    """Values on and next to every bin edge, outside [-1, 1], NaN and inf: torch.histc's bins."""
    edges = torch.linspace(-1, 1, 31)
    x = torch.cat([edges, torch.nextafter(edges, torch.tensor(2.0)), torch.nextafter(edges, torch.tensor(-2.0)),
                   torch.linspace(-1.2, 1.2, 100001), torch.tensor([float("nan"), float("inf"), -float("inf")])])
    heatmaps = _core.AdamHeatmaps()
    # exp_avg_sq 1 and a huge step: no bias correction, eps 0, so the ratio is x itself.
    heatmaps.add(["u"], ["r"], [x], [torch.ones_like(x)], torch.tensor([1e9]), 0.9, 0.999, 0.0)
    update, ratio = heatmaps.take()
    expected = torch.histc(x, 30, -1, 1)
    assert torch.equal(torch.tensor(ratio.counts, dtype=torch.float32)[:, 0], expected)
    assert torch.equal(torch.tensor(update.counts, dtype=torch.float32)[:, 0], expected)


DISTRIBUTED_RUN = r"""
import os, sys, torch, torch.distributed as dist
sys.path.insert(0, sys.argv[1])
from monitor_net import Net, batch
dist.init_process_group("gloo", init_method="file://" + os.path.abspath("store"), rank=0, world_size=1)
from msprobe.pytorch import TrainerMon
torch.manual_seed(0)
model = Net()
opt = torch.optim.Adam(model.parameters(), lr=0.0625)
TrainerMon("config.json").monitor_gnorm_with_ad(model, optimizer=opt)
for step in range(3):
    opt.zero_grad()
    (model(batch(step)).sum() ** 2).backward()
    opt.step()
dist.destroy_process_group()
"""


def test_ur_distribution_names_the_rank_when_distributed(tmp_path):
    """Distributed, 1.2.1 puts the rank in the heat maps' tags: {param}/rank{R}/adam_update
    (one gloo rank, a file store: no port)."""
    pytest.importorskip("tensorboard")
    with open(tmp_path / "config.json", "w") as f:
        json.dump({"ur_distribution": True, "ops": ["norm"], "format": "tensorboard"}, f)
    run_python(DISTRIBUTED_RUN, os.path.dirname(os.path.abspath(__file__)), cwd=str(tmp_path),
               env={"MONITOR_OUTPUT_DIR": "out"})
    acc = _images(the_rank_dir(tmp_path / "out"))
    tags = sorted(acc.Tags()["images"])
    assert "0:head.weight/rank0/adam_update" in tags and "0:head.weight/rank0/adam_ratio" in tags
    assert len(tags) == 12 and all("/rank0/adam_" in t for t in tags)
    assert [e.step for e in acc.Images("0:head.weight/rank0/adam_ratio")] == [1, 2]


@pytest.mark.parametrize("stage, port", [("2", 29741), ("3", 29751)])
def test_mg_direction_and_heatmaps_with_zero_partitions(tmp_path, stage, port):
    """DeepSpeed ZeRO stand-ins (zero_net.py, two gloo ranks): mg_direction compares the pieces of
    the flat fp32 partitions' gradient and exp_avg (as 1.2.1 does), the heat maps are those of
    the pieces; every step of both ranks, losses unchanged."""
    pytest.importorskip("tensorboard")
    from zero_net import run_ranks
    config = {"mg_direction": True, "ur_distribution": True, "ops": ["mean"], "format": "tensorboard"}
    outs = {}
    for what, extra in (("on", []), ("off", ["--no-monitor"])):
        os.makedirs(tmp_path / what)
        with open(tmp_path / what / "config.json", "w") as f:
            json.dump(config, f)
        outs[what] = run_ranks(sys.executable, str(tmp_path / what),
                               ["--stage", stage, "--steps", "3", "--config", "config.json", *extra],
                               port + (what == "off"), env={"PYTHONPATH": TESTS_DIR})
    assert [losses(o) for o in outs["on"]] == [losses(o) for o in outs["off"]]
    for rank in (0, 1):
        acc = _images(the_rank_dir(tmp_path / "on" / "out", rank))
        scalars = acc.Tags()["scalars"]
        assert scalars and all(t.endswith("/mg_direction_mean") and f"/rank{rank}/" in t for t in scalars)
        for t in scalars:
            values = [(e.step, e.value) for e in acc.Scalars(t)]
            assert [s for s, _ in values] == [0, 1, 2] and values[0][1] == 1.0
            assert all(0.0 <= v <= 1.0 for _, v in values), (t, values)
        images = acc.Tags()["images"]
        assert images and all(f"/rank{rank}/adam_" in t for t in images)
        assert all([e.step for e in acc.Images(t)] == [1, 2] for t in images)


@pytest.mark.parametrize("case, port", [("zero2_mg", 29781), ("zero3_mg", 29791)])
def test_mg_direction_with_zero_partitions_as_original(tmp_path, case, port):
    """mg_direction of the ZeRO stand-ins' partition pieces: 1.2.1's other_*.csv on both ranks."""
    from zero_net import run_ranks
    with open(tmp_path / "config.json", "w") as f:
        json.dump(ZERO_MG_CONFIG, f)
    outs = run_ranks(sys.executable, str(tmp_path), [*ZERO_MG_CASES[case], "--config", "config.json"], port,
                     env={"PYTHONPATH": TESTS_DIR})
    with open(os.path.join(FIXTURES, case, "stdout.txt")) as f:
        assert_same_steps(losses(outs[0]), losses(f.read()))
    for rank in (0, 1):
        assert_csv_as_original(the_rank_dir(tmp_path / "out", rank), os.path.join(FIXTURES, case, f"rank{rank}"), 6,
                               abs_tol=MG_FLIP_TOL)
