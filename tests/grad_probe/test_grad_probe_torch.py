"""grad_probe for PyTorch: debugger.monitor(model) and GradComparator against the ORIGINAL 1.2.1's
files (tests/fixtures/grad_probe_1.2.1, made by make_grad_fixtures.py), training unchanged,
bad input, and the first step where two runs' gradient directions part."""
import json
import math
import os
import sys

import pytest
from conftest import TESTS_DIR, run_python
from tolerances import kernel_rtol

HERE = os.path.dirname(os.path.abspath(__file__))
NET = os.path.join(HERE, "grad_net.py")
FIXTURES = os.path.join(TESTS_DIR, "fixtures", "grad_probe_1.2.1")
sys.path.insert(0, HERE)
from grad_checks import (  # noqa: E402
    assert_files_as_original,
    assert_similarities_as_original,
    digests,
    files_under,
)
from make_grad_fixtures import CASES, config_of  # noqa: E402


def run_net(work, case, *extra, env=None):
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(config_of(case), f)
    return run_python(NET, "--config", "config.json", *extra, cwd=str(work), env=env)


@pytest.mark.parametrize("case", sorted(CASES))
def test_files_as_original(tmp_path, case):
    ours = run_net(tmp_path, case).stdout
    with open(os.path.join(FIXTURES, case, "stdout.txt")) as f:
        golden = f.read()
    assert_files_as_original(str(tmp_path / "out"), os.path.join(FIXTURES, case, "out"), ours, golden)


def test_training_unchanged(tmp_path):
    off = digests(run_net(tmp_path / "off", "L2", "--no-probe").stdout)
    for case in ("L0", "L2"):
        on = digests(run_net(tmp_path / case, case).stdout)
        assert on == off, case   # losses and gradients bit for bit


def test_device_path_gives_the_same_files(tmp_path):
    run_net(tmp_path / "host", "L2")
    run_net(tmp_path / "dev", "L2", env={"MSPROBE_FORCE_DEVICE_PATH": "1"})
    host, dev = tmp_path / "host" / "out", tmp_path / "dev" / "out"
    assert files_under(host) == files_under(dev)
    for rel in files_under(host):
        assert (host / rel).read_bytes() == (dev / rel).read_bytes(), rel


def test_compare_names_the_first_divergent_step(tmp_path):
    run_net(tmp_path / "a", "L2")
    run_net(tmp_path / "b", "L2", "--perturb-step", "3")
    r = run_python(NET, "--compare", "a/out", "b/out", "result", cwd=str(tmp_path))
    assert_similarities_as_original(str(tmp_path / "result"), os.path.join(FIXTURES, "compare", "result"))
    with open(tmp_path / "result" / "rank0" / "grad_divergence.json") as f:
        div = json.load(f)
    assert div["first_divergent_step"] == 3
    assert [p["name"] for p in div["parameters"]] == ["fc1.weight"]
    assert div["steps"] == [0, 1, 2, 3, 4]
    lines = [line for line in r.stderr.splitlines() if "gradient directions part" in line]
    assert len(lines) == 1 and "step 3: fc1.weight" in lines[0], r.stderr
    # the same runs agree everywhere: no divergence
    run_python(NET, "--compare", "a/out", "a/out", "same", cwd=str(tmp_path))
    with open(tmp_path / "same" / "rank0" / "grad_divergence.json") as f:
        assert json.load(f)["first_divergent_step"] is None


def test_comparator_import_paths():
    code = ("from msprobe import *\n"
            "from msprobe.core.grad_probe.grad_compare import GradComparator as G\n"
            "assert GradComparator is G\n"
            "assert callable(G.compare_distributed) and callable(G.compare)\n")
    run_python(code)


def one_line_error(code, cwd):
    r = run_python(code, cwd=str(cwd), check=False)
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    return last


def test_comparator_missing_folder_is_one_clear_line(tmp_path):
    os.makedirs(tmp_path / "a")
    last = one_line_error("from msprobe.core.grad_probe.grad_compare import GradComparator\n"
                          "GradComparator.compare_distributed('a', 'nowhere', 'out')\n", tmp_path)
    assert "GradComparator: nowhere is not a folder" in last
    last = one_line_error("from msprobe.core.grad_probe.grad_compare import GradComparator\n"
                          "GradComparator.compare_distributed('a', 'a', 'out')\n", tmp_path)
    assert "no matched ranks for comparison, please dump data in same configuration" in last


def test_other_tasks_ignore_monitor_and_grad_probe_ignores_start(tmp_path, fresh_debugger):
    import torch
    with open(tmp_path / "config.json", "w") as f:
        json.dump(config_of("L1"), f)
    debugger = fresh_debugger("config.json")
    model = torch.nn.Linear(2, 2)
    debugger.start(model)   # nothing to start: 1.2.1's grad_probe has no dump session
    debugger.monitor(model)
    debugger.step()
    debugger.stop()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
    assert (tmp_path / "out" / "rank0" / "grad_summary_0.csv").exists()


def test_distributed_compare_and_report(tmp_path):
    import shutil
    for run, extra in (("a", ()), ("b", ("--perturb-step", "3"))):
        run_net(tmp_path / run, "L2", *extra)
        shutil.copytree(tmp_path / run / "out" / "rank0", tmp_path / run / "out" / "rank1")
    os.makedirs(tmp_path / "a" / "out" / "rank7")   # only in one run: not compared
    r = run_python(NET, "--compare", "a/out", "b/out", "result", cwd=str(tmp_path))
    assert "the following ranks will be compared: [0, 1]" in r.stderr
    for rank in ("rank0", "rank1"):
        assert (tmp_path / "result" / rank / "similarities.csv").exists()
        assert (tmp_path / "result" / rank / "similarities_picture" / "summary_similarities.png").stat().st_size > 0
    assert not (tmp_path / "result" / "rank7").exists()
    r = run_python("import sys; from msprobe.cli import main; sys.exit(main())", "report", "result",
                   "-o", "page.html", cwd=str(tmp_path))
    page = (tmp_path / "page.html").read_text()
    assert page.count("<svg") == 2 and "<h2>rank1</h2>" in page
    assert "gradient directions part first at step 3: fc1.weight" in page


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_half_and_double_gradients_as_original_computes_them(tmp_path, fresh_debugger, dtype):
    """1.2.1's formulas (grad_stat_csv.py), evaluated here with torch: MD5 of grad.float()'s bytes,
    max/min in the dtype, norm = torch.norm in the dtype, shares from torch.bucketize against
    float32 bounds; direction grad > 0."""
    import hashlib

    import numpy as np
    import torch
    from grad_checks import read_csv
    bounds = [-0.5, 0, 0.25]
    for level in ("L0", "L2"):
        cfg = {"task": "grad_probe", "dump_path": f"./{level}", "grad_probe": {"grad_level": level, "bounds": bounds}}
        with open(tmp_path / "config.json", "w") as f:
            json.dump(cfg, f)
        fresh_debugger._reset_for_tests()
        debugger = fresh_debugger("config.json")
        model = torch.nn.Linear(64, 33).to(getattr(torch, dtype))
        debugger.monitor(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(8, 64, generator=torch.Generator().manual_seed(3)).to(getattr(torch, dtype))
        model(x).pow(2).sum().backward()
        grad = model.weight.grad.clone()
        opt.step()
        rows = read_csv(tmp_path / level / "rank0" / "grad_summary_0.csv")
        row = dict(zip(rows[0], rows[1]))
        assert row["param_name"] == "weight" and row["shape"] == "[33, 64]"
        assert float(row["max"]) == grad.max().float().item() and float(row["min"]) == grad.min().float().item()
        norm = torch.norm(grad).float().item()
        assert math.isclose(float(row["norm"]), norm, rel_tol=4 * kernel_rtol(dtype)), (row["norm"], norm)
        if level == "L0":
            assert row["MD5"] == hashlib.md5(grad.float().numpy().tobytes()).hexdigest()
            continue
        g = grad.float() if dtype == "bfloat16" else grad
        buckets = torch.bucketize(g, torch.Tensor(bounds))
        n = grad.numel()
        want = [(buckets == i).sum().item() / n for i in range(len(bounds) + 1)] + [(grad == 0).sum().item() / n]
        assert [float(row[k]) for k in rows[0][1:6]] == want
        direction = np.load(tmp_path / level / "rank0" / "step0" / "weight.npy")
        assert (direction == (grad > 0).numpy()).all()
