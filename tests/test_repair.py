"""Nothing lost, whatever the cut: dumps of PyTorch training killed (SIGKILL) at random moments,
and dump files cut at random offsets, are repaired by `msprobe repair` (and by a new
PrecisionDebugger on the same dump_path) into files that json.load reads and that hold every
record complete before the cut. The oracle (tests/torn_json.py) uses only the standard library's
JSON decoder."""
import json
import os
import random

from conftest import TESTS_DIR, run_python
from kill_check import DUMP_FILES, cut_and_repair, verify_killed_dumps
from torn_json import is_torn, kind_of, raw_names


def test_kill_9_at_random_moments_then_repair(tmp_path):
    kills = 100
    run_python(os.path.join(TESTS_DIR, "scripts", "kill_storm.py"), str(tmp_path), str(kills),
               cwd=tmp_path, timeout=900)
    files, torn, records = verify_killed_dumps(tmp_path, kills, ".pt")
    print(f"\n[kill storm, PyTorch] {kills} kills, {files} files, {torn} torn before repair, "
          f"{records} records kept")
    assert files >= 3 * kills and records > 1000


# ---- cuts at random offsets of a large dump --------------------------------------------------

MAKE_DUMP = r"""
import sys
sys.argv = ["kill_storm"]
import torch
from msprobe.pytorch import PrecisionDebugger
sys.path.insert(0, {scripts!r})
from kill_storm import Net
torch.manual_seed(0)
dbg = PrecisionDebugger(task="statistics", dump_path="./dump", level="mix")
model = Net()
dbg.start(model)
for _ in range(40):
    model(torch.randn(8, 16)).pow(2).mean().backward()
dbg.stop()
dbg.step()
"""


def test_large_dump_cut_at_random_offsets_then_repaired(tmp_path):
    run_python(MAKE_DUMP.format(scripts=os.path.join(TESTS_DIR, "scripts")), cwd=tmp_path)
    rank = tmp_path / "dump" / "step0" / "rank"
    for name in DUMP_FILES:  # finished files name each record once
        names = raw_names((rank / name).read_text(), kind_of(name))
        assert len(names) == len(set(names)), name
    assert cut_and_repair(rank, tmp_path, random.Random(7), 40, 20000, ends=True) == 3 * 42


# ---- msprobe repair, and repair by a new PrecisionDebugger -----------------------------------

def write_cut_dump(rank_dir):
    os.makedirs(rank_dir, exist_ok=True)
    with open(os.path.join(rank_dir, "dump.json"), "w") as f:
        f.write('{\n "task": "statistics",\n "level": "L1",\n "framework": "pytorch",\n'
                ' "dump_data_dir": null,\n "data": {\n  "Torch.relu.0.forward": {\n'
                '   "input_args": []\n  },\n  "Torch.relu.1.forward": {\n   "inpu')
    with open(os.path.join(rank_dir, "stack.json"), "w") as f:
        f.write('{\n "Torch.relu.0.forward": [\n  "File a.py, line 1, in <module>, \\n x"\n'
                ' ],\n "To')
    with open(os.path.join(rank_dir, "construct.json"), "w") as f:
        f.write("{}")


def msprobe_cli(*args, cwd):
    return run_python("import sys\nfrom msprobe.cli import main\nsys.exit(main(sys.argv[1:]))",
                      *args, cwd=cwd, check=False)


def test_msprobe_repair_cli(tmp_path):
    rank = tmp_path / "dump" / "step3" / "rank"
    write_cut_dump(rank)
    r = msprobe_cli("repair", "dump", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "dump.json: cut at byte" in r.stderr and "Torch.relu.1.forward" in r.stderr
    assert "2 rewritten" in r.stdout
    dump = json.loads((rank / "dump.json").read_text())
    assert list(dump["data"]) == ["Torch.relu.0.forward"] and dump["task"] == "statistics"
    assert list(json.loads((rank / "stack.json").read_text())) == ["Torch.relu.0.forward"]
    r = msprobe_cli("repair", "dump", cwd=tmp_path)
    assert r.returncode == 0 and "nothing to repair" in r.stdout


def test_msprobe_repair_cli_malformed_file_one_line_error(tmp_path):
    rank = tmp_path / "dump" / "step0" / "rank"
    rank.mkdir(parents=True)
    bad = '{\n "a": 1 2\n}'
    (rank / "construct.json").write_text(bad)
    r = msprobe_cli("repair", "dump", cwd=tmp_path)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    errors = [line for line in r.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 1 and "construct.json" in errors[0]
    assert (rank / "construct.json").read_text() == bad
    r = msprobe_cli("repair", "no_such_dir", cwd=tmp_path)
    assert r.returncode == 1 and "no_such_dir" in r.stderr and "Traceback" not in r.stderr


def test_new_debugger_repairs_its_rank_before_writing(tmp_path):
    write_cut_dump(tmp_path / "dump" / "step7" / "rank")      # this rank, a step not rewritten
    write_cut_dump(tmp_path / "dump" / "step7" / "rank1")     # another rank: left to it
    code = ("import torch\nfrom msprobe.pytorch import PrecisionDebugger\n"
            "d = PrecisionDebugger(task='statistics', dump_path='./dump', level='L1')\n"
            "d.start(); torch.relu(torch.randn(3)); d.stop(); d.step()\n")
    r = run_python(code, cwd=tmp_path)
    warnings = [line for line in r.stderr.splitlines() if "repaired an earlier dump" in line]
    assert len(warnings) == 2, r.stderr
    assert all("step7/rank/" in w for w in warnings)
    dump = json.loads((tmp_path / "dump" / "step7" / "rank" / "dump.json").read_text())
    assert list(dump["data"]) == ["Torch.relu.0.forward"]
    assert is_torn(tmp_path / "dump" / "step7" / "rank1" / "dump.json")
    assert "Torch.relu.0.forward" in json.loads(
        (tmp_path / "dump" / "step0" / "rank" / "dump.json").read_text())["data"]
