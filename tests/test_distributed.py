"""Several ranks: a real 2-process gloo group writes rank0/ and rank1/ folders."""
import os
import subprocess
import sys

from conftest import TESTS_DIR, load_dump

WORKER = r"""
import os, sys, torch, torch.distributed as dist
from msprobe.pytorch import PrecisionDebugger
dist.init_process_group("gloo", rank=int(os.environ["RANK"]), world_size=2)
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="L1")
dbg.start()
t = torch.full((4,), float(dist.get_rank() + 1))
dist.all_reduce(t)
torch.relu(t)
dbg.stop()
dbg.step()
dist.destroy_process_group()
print("SUM", t.tolist())
"""


def test_two_rank_gloo_dump(tmp_path):
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT="29533", WORLD_SIZE="2",
               PYTHONPATH=TESTS_DIR)
    procs = [subprocess.Popen([sys.executable, "-c", WORKER], cwd=tmp_path,
                              env=dict(env, RANK=str(r)), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for r in range(2)]
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert "SUM [3.0, 3.0, 3.0, 3.0]" in out
    assert sorted(os.listdir(tmp_path / "dump" / "step0")) == ["rank0", "rank1"]
    for r in range(2):
        data = load_dump(tmp_path / "dump", 0, r)[0]["data"]
        ar = data["Distributed.all_reduce.0.forward"]
        assert ar["input_args"][0]["Max"] == float(r + 1)
        # Collectives work in place: the recorded output holds the reduced values.
        assert "Torch.relu.0.forward" in data
