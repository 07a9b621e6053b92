"""TrainerMon on two gloo ranks with DDP: one output folder per rank, data-parallel and
tensor-parallel duplicates left out of grad_reduced as in 1.2.1, grad_unreduced taken before the
all-reduce, losses unchanged."""
import json
import os
import subprocess
import sys

import pytest
from conftest import TESTS_DIR

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from monitor_checks import losses, read_csv, the_rank_dir  # noqa: E402

WORKER = r"""
import os, sys, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
sys.path.insert(0, sys.argv[1])
from monitor_net import Net, batch
rank = int(os.environ["RANK"])
dist.init_process_group("gloo", rank=rank, world_size=2)
torch.manual_seed(0)
net = Net()
net.head.weight.tensor_model_parallel = True
model = DDP(net)
opt = torch.optim.SGD(model.parameters(), lr=0.125)
if sys.argv[2] != "off":
    from msprobe.pytorch import TrainerMon
    mon = TrainerMon("config.json")
    group = dist.new_group([0, 1])
    kw = {"dp_group": group} if sys.argv[2] == "dp" else {"tp_group": group}
    mon.monitor_gnorm_with_ad(model, optimizer=opt, **kw)
for step in range(2):
    opt.zero_grad()
    loss = (model(batch(step) * (rank + 1)) * torch.tensor([[1.0, -2.0]])).sum() ** 2
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item()!r}", flush=True)
# DDP's reducer and gloo's threads go before the group does (else gloo may abort at exit).
dist.barrier()
del model, opt
dist.destroy_process_group()
# torch's gloo can still abort in its thread destructors at interpreter exit ("terminate called
# without an active exception", seen in CI with no probe at all); every file is written by now.
sys.stdout.flush()
os._exit(0)
"""


def run_ranks(work, mode, port):
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump({"wg_distribution": True, "ops": ["norm", "max"], "format": "csv"}, f)
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="2",
               PYTHONPATH=TESTS_DIR, MONITOR_OUTPUT_DIR="out")
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, os.path.dirname(os.path.abspath(__file__)), mode],
                              cwd=work, env=dict(env, RANK=str(r)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for r in range(2)]
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err
    return [losses(out) for out, _ in outs]


def rows(work, rank, name):
    path = os.path.join(the_rank_dir(os.path.join(work, "out"), rank), name)
    return {r[1]: r[3:] for r in read_csv(path)[1:]} if os.path.exists(path) else {}


@pytest.mark.parametrize("mode, port", [("dp", 29571), ("tp", 29572)])
def test_two_ranks(tmp_path, mode, port):
    on = run_ranks(str(tmp_path / "on"), mode, port)
    off = run_ranks(str(tmp_path / "off"), "off", port + 10)
    assert on == off and len(on[0]) == 2          # training unchanged on both ranks
    assert on[0] != on[1]                         # the ranks saw different data
    names = sorted(os.listdir(tmp_path / "on" / "out"))
    assert len(names) == 2 and "-rank0-" in names[0] and "-rank1-" in names[1]
    work = str(tmp_path / "on")
    reduced0, reduced1 = rows(work, 0, "grad_reduced_1-1.csv"), rows(work, 1, "grad_reduced_1-1.csv")
    assert len(reduced0) == 6
    if mode == "dp":
        assert reduced1 == {}                     # every parameter is a data-parallel duplicate on rank 1
    else:
        # tp rank 1 keeps only the tensor-parallel parameter; DDP made its gradient equal to rank 0's.
        assert list(reduced1) == ["module.head.weight"]
        assert reduced1["module.head.weight"] == reduced0["module.head.weight"]
    unreduced0, unreduced1 = rows(work, 0, "grad_unreduced_1-1.csv"), rows(work, 1, "grad_unreduced_1-1.csv")
    # Before the all-reduce each rank has its own gradient; after it, rank 0 has the mean.
    assert unreduced0["module.head.bias"] != unreduced1["module.head.bias"]
    assert reduced0["module.head.bias"] != unreduced0["module.head.bias"]
