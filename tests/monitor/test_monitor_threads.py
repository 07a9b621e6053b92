"""A batch of gradients large enough is read by pooled threads (grad_reduced, param): the csv
files are the same byte for byte with one thread (MSPROBE_STATS_THREADS=1) and with the pool
(ndigits 20: every digit of the doubles is written; weights of very different magnitudes, so a sum
taken in another order would show)."""
import filecmp
import os

from conftest import run_python

from msprobe import _core

TRAIN = """
import torch
from msprobe.pytorch import TrainerMon
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 1100), torch.nn.Tanh(), torch.nn.Linear(1100, 3))
with torch.no_grad():  # magnitudes from 1e-12 to 1e11: sums that round differently in another order
    w = model[0].weight
    w.copy_(torch.randn(w.shape) * torch.pow(10.0, torch.randint(-12, 12, w.shape).float()))
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
mon = TrainerMon("config.json")
mon.monitor_gnorm_with_ad(model, optimizer=opt)
for step in range(3):
    opt.zero_grad()
    x = torch.sin(torch.arange(8 * 1024, dtype=torch.float32) * (step + 1)).reshape(8, 1024)
    model(x).square().sum().backward()
    opt.step()
"""
CONFIG = '{"wg_distribution": true, "param_distribution": true, "ops": ["min", "max", "norm", "mean", "zeros"], ' \
         '"format": "csv", "ndigits": 20}'


def run_with(tmp_path, name, threads):
    work = tmp_path / name
    work.mkdir()
    (work / "config.json").write_text(CONFIG)
    env = {"MONITOR_OUTPUT_DIR": "out"}
    if threads:
        env["MSPROBE_STATS_THREADS"] = threads
    run_python(TRAIN, cwd=str(work), env=env)
    (rank_dir,) = (work / "out").iterdir()
    return rank_dir


def test_pooled_threads_write_the_same_numbers(tmp_path):
    if len(os.sched_getaffinity(0)) >= 2:
        assert _core.parallel_workers() >= 1  # the comparison below does use the pool
    one = run_with(tmp_path, "one", "1")
    pooled = run_with(tmp_path, "pooled", None)
    names = sorted(p.name for p in one.iterdir())
    assert [n for n in names if n.startswith("grad_reduced")] and [n for n in names if n.startswith("param")]
    assert names == sorted(p.name for p in pooled.iterdir())
    match, mismatch, errors = filecmp.cmpfiles(one, pooled, names, shallow=False)
    assert mismatch == [] and errors == [], (mismatch, errors)
