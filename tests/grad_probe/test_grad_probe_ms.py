"""grad_probe for MindSpore (PyNative): debugger.monitor(optimizer) against the ORIGINAL 1.2.1's
files (tests/fixtures/grad_probe_1.2.1_mindspore), training unchanged, the device path, the
comparator on MindSpore's files, and static graph mode (1.2.1 fails to compile its statistics on
MindSpore 2.10's CPU; ours records an optimizer the script calls, as in PyNative)."""
import json
import os
import sys

import pytest
from conftest import TESTS_DIR
from conftest import run_python as run_host_python

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TESTS_DIR, "mindspore"))
from grad_checks import (  # noqa: E402
    assert_files_as_original,
    assert_similarities_as_original,
    digests,
    files_under,
)
from make_grad_fixtures import CASES, config_of  # noqa: E402
from ms_helpers import run_python  # noqa: E402

NET = os.path.join(HERE, "grad_net_ms.py")
TORCH_NET = os.path.join(HERE, "grad_net.py")
FIXTURES = os.path.join(TESTS_DIR, "fixtures", "grad_probe_1.2.1_mindspore")


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


def test_training_unchanged_and_device_path(tmp_path):
    off = digests(run_net(tmp_path / "off", "L2", "--no-probe").stdout)
    assert digests(run_net(tmp_path / "L0", "L0").stdout) == off
    assert digests(run_net(tmp_path / "host", "L2").stdout) == off
    run_net(tmp_path / "dev", "L2", env={"MSPROBE_FORCE_DEVICE_PATH": "1"})
    host, dev = tmp_path / "host" / "out", tmp_path / "dev" / "out"
    assert files_under(host) == files_under(dev)
    for rel in files_under(host):
        assert (host / rel).read_bytes() == (dev / rel).read_bytes(), rel


def test_compare_names_the_first_divergent_step(tmp_path):
    run_net(tmp_path / "a", "L2")
    run_net(tmp_path / "b", "L2", "--perturb-step", "3")
    r = run_host_python(TORCH_NET, "--compare", "a/out", "b/out", "result", cwd=str(tmp_path))
    assert_similarities_as_original(str(tmp_path / "result"), os.path.join(FIXTURES, "compare", "result"))
    with open(tmp_path / "result" / "rank0" / "grad_divergence.json") as f:
        div = json.load(f)
    assert div["first_divergent_step"] == 3
    assert [p["name"] for p in div["parameters"]] == ["fc1.weight"]
    assert "gradient directions part first at step 3: fc1.weight" in r.stderr


def test_static_graph_records_as_pynative(tmp_path):
    """1.2.1 has no golden here (its TensorDump statistics do not compile on MindSpore 2.10's CPU):
    the same files as our PyNative run, and the same training."""
    off = digests(run_net(tmp_path / "off", "L2", "--no-probe", "--graph").stdout)
    r = run_net(tmp_path / "graph", "L2", "--graph")
    assert digests(r.stdout) == off
    run_net(tmp_path / "pynative", "L2")
    graph, pynative = tmp_path / "graph" / "out", tmp_path / "pynative" / "out"
    assert files_under(graph) == files_under(pynative) and files_under(graph)
    for rel in files_under(graph):
        if rel.endswith(".npy") or "grad_summary_0" in rel:   # later steps: graph kernels may round apart
            assert (graph / rel).read_bytes() == (pynative / rel).read_bytes(), rel

