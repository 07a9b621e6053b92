"""Nothing lost, whatever the cut (MindSpore): training killed (SIGKILL) at random moments, and a
dump cut at random offsets, repaired by msprobe into files that json.load reads and that hold every
record complete before the cut (oracle: tests/torn_json.py, standard library only)."""
import os
import random

from kill_check import cut_and_repair, verify_killed_dumps
from ms_helpers import HERE, run_python
from torn_json import is_torn


def test_kill_9_at_random_moments_then_repair(tmp_path):
    kills = 40
    run_python(os.path.join(HERE, "kill_storm_ms.py"), str(tmp_path), str(kills), cwd=tmp_path,
               timeout=900)
    files, torn, records = verify_killed_dumps(tmp_path, kills, ".npy")
    print(f"\n[kill storm, MindSpore] {kills} kills, {files} files, {torn} torn before repair, "
          f"{records} records kept")
    assert files >= 3 * kills and records > 300


MAKE_DUMP = r"""
import sys
sys.path.insert(0, {here!r})
from kill_storm_ms import training
from msprobe.mindspore import PrecisionDebugger
net, optimizer, grad_fn, x, target = training()
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="mix")
dbg.start(net)
for _ in range(30):
    optimizer(grad_fn(x, target)[1])
dbg.stop()
dbg.step()
"""


def test_large_dump_cut_at_random_offsets_then_repaired(tmp_path):
    run_python(MAKE_DUMP.format(here=HERE), cwd=tmp_path)
    rank = tmp_path / "dump" / "step0" / "rank"
    cut_and_repair(rank, tmp_path, random.Random(11), 30, 10000)


def test_new_debugger_repairs_its_rank_before_writing(tmp_path):
    rank = tmp_path / "dump" / "step9" / "rank"
    rank.mkdir(parents=True)
    (rank / "construct.json").write_text('{\n "Cell.a.A.forward.0": null,\n "Cell.b')
    r = run_python(MAKE_DUMP.format(here=HERE), cwd=tmp_path)
    assert "repaired an earlier dump" in r.stderr and "step9/rank/construct.json" in r.stderr
    assert not is_torn(rank / "construct.json")
    assert (rank / "construct.json").read_text() == '{\n "Cell.a.A.forward.0": null\n}'
