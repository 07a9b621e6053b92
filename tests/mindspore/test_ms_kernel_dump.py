"""Level L2 (kernel dump) and static graph: the dump configuration msprobe 1.2.1 generates,
MindSpore's own dump layout under dump_path, statistics on a CPU, and the error cases. Real
MindSpore in fresh interpreters (MindSpore reads its dump configuration once per process)."""
import csv
import hashlib
import json
import os
import re

import numpy as np
import pytest
from ms_helpers import HERE, run_python

FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "original_1.2.1_mindspore_l2")
NET = os.path.join(HERE, "kernel_net.py")
START = os.path.join(HERE, "kernel_start.py")
# {OpType}.{OpName}.{task}.{stream}.{timestamp}.{input|output}.{slot}.{format}.{DType}.npy
FILE_RE = re.compile(r"^[A-Za-z0-9]+\.[^/]+\.\d+\.\d+\.\d+\.(input|output)\.\d+\.[A-Za-z]+\.[A-Za-z0-9]+\.npy$")
STAT_HEADER = ["Op Type", "Op Name", "Task ID", "Stream ID", "Timestamp", "IO", "Slot", "Data Size",
               "Data Type", "Shape"]
X = np.arange(8, dtype=np.float32).reshape(2, 4) - 3

with open(os.path.join(HERE, "kernel_configs", "cases.json")) as _f:
    CASES = json.load(_f)


def write_config(tmp_path, cfg):
    (tmp_path / "config.json").write_text(json.dumps(cfg))


def run_net(tmp_path, cfg, mode, *flags, check=True):
    write_config(tmp_path, cfg)
    return run_python(NET, mode, *flags, cwd=tmp_path, check=check)


def iteration_dirs(dump):
    """{(graph, iteration): [file names]} of rank_0/Net."""
    out = {}
    net = dump / "rank_0" / "Net"
    for g in sorted(os.listdir(net)):
        for it in sorted(os.listdir(net / g)):
            out[(g, it)] = sorted(os.listdir(net / g / it))
    return out


def read_stats(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


# ---- the generated configuration is the original's ------------------------------------------

@pytest.mark.parametrize("name", sorted(CASES))
def test_dump_config_matches_original(tmp_path, name):
    case = CASES[name]
    write_config(tmp_path, case["config"])
    r = run_python(START, case["mode"], cwd=tmp_path)
    env = json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("ENV ")][-1][4:])
    golden_env = json.load(open(os.path.join(FIXTURES, name, "env.json")))
    golden_files = [f for f in os.listdir(os.path.join(FIXTURES, name)) if f != "env.json"]
    assert len(golden_files) == 1
    fname = golden_files[0]
    dump = os.path.realpath(tmp_path / "dump")
    ours = (tmp_path / "dump" / fname).read_text().replace(json.dumps(dump), '"<dump_path>"')
    golden = open(os.path.join(FIXTURES, name, fname)).read()
    assert ours == golden
    task = case["config"]["task"]
    if task in ("statistics", "overflow_check"):
        # CPU: MindSpore is given the same settings with saved_data "tensor" (documented).
        staged = os.path.join("dump", "kernel_dump_cpu_staging.json" if task == "statistics"
                              else "kernel_overflow_cpu_staging.json")
        assert env["MINDSPORE_DUMP_CONFIG"] == staged
        expected = {k: (staged if v else None) for k, v in golden_env.items()}
        assert env == expected
        staged_text = (tmp_path / staged).read_text().replace(json.dumps(dump), '"<dump_path>"')
        saved = '"saved_data": "statistic"' if task == "statistics" else '"saved_data": "full"'
        assert staged_text == golden.replace(saved, '"saved_data": "tensor"')
    else:
        assert env == golden_env


# ---- static graph --------------------------------------------------------------------------

def test_graph_l2_tensor_training_layout(tmp_path):
    r = run_net(tmp_path, {"task": "tensor", "dump_path": "./dump", "level": "L2"}, "graph_train")
    assert "DONE" in r.stdout
    dump = tmp_path / "dump"
    assert (dump / "kernel_kbyk_dump.json").is_file()
    assert (dump / "rank_0" / "execution_order").is_dir()
    dirs = iteration_dirs(dump)
    assert dirs, "no iteration folders"
    files = [f for fs in dirs.values() for f in fs]
    assert files and all(FILE_RE.match(f) for f in files), [f for f in files if not FILE_RE.match(f)]
    assert not any(f == "statistic.csv" for f in files)
    # Forward and backward kernels of the training step are there.
    assert any(f.startswith("MatMul.") for f in files)
    assert any("Grad" in f or "grad" in f for f in files)
    # The input of the network is dumped unchanged.
    first = dirs[min(dirs)]
    x_files = [f for f in first if f.startswith("MatMul.") and ".input.0." in f]
    folder = dump / "rank_0" / "Net" / min(dirs)[0] / min(dirs)[1]
    assert any(np.array_equal(np.load(folder / f, allow_pickle=False), X) for f in x_files)


def test_graph_l2_statistics_on_cpu(tmp_path):
    cfg = {"task": "statistics", "dump_path": "./dump", "level": "L2",
           "statistics": {"summary_mode": "md5"}}
    r = run_net(tmp_path, cfg, "graph_train")
    assert "DONE" in r.stdout and "Traceback" not in r.stderr
    dump = tmp_path / "dump"
    dirs = iteration_dirs(dump)
    assert dirs
    for key, files in dirs.items():
        assert files == ["statistic.csv"], (key, files)  # tensors converted and removed
    rows = read_stats(dump / "rank_0" / "Net" / min(dirs)[0] / min(dirs)[1] / "statistic.csv")
    assert rows[0] == STAT_HEADER + ["Max Value", "Min Value", "Avg Value", "L2Norm Value", "MD5"]
    body = rows[1:]
    assert body and all(len(row) == len(rows[0]) + 1 and row[-1] == "" for row in body)
    stamps = [int(row[4]) for row in body]
    assert stamps == sorted(stamps)
    x_rows = [row for row in body if row[0] == "MatMul" and row[5] == "input" and row[6] == "0"
              and row[9] == '(2,4)']
    assert x_rows
    row = x_rows[0]
    assert row[7] == str(X.nbytes) and row[8] == "float32"
    assert [float(v) for v in row[10:14]] == pytest.approx(
        [X.max(), X.min(), X.mean(), np.linalg.norm(X)], rel=1e-6)
    assert row[14] == hashlib.md5(X.tobytes()).hexdigest()


def test_graph_l2_step_filter(tmp_path):
    run_net(tmp_path, {"task": "tensor", "dump_path": "./dump", "level": "L2", "step": [1]},
            "graph_forward")
    assert list(iteration_dirs(tmp_path / "dump")) == [("0", "1")]


@pytest.mark.parametrize("mode,absent", [("input", ".output."), ("output", ".input.")])
def test_graph_l2_data_mode(tmp_path, mode, absent):
    run_net(tmp_path, {"task": "tensor", "dump_path": "./dump", "level": "L2", "step": [0],
                       "tensor": {"data_mode": [mode]}}, "graph_forward", "--steps", "1")
    files = iteration_dirs(tmp_path / "dump")[("0", "0")]
    assert files and not any(absent in f for f in files)


@pytest.mark.parametrize("kernels,op", [(["Default/ReLU-op0"], "ReLU"),
                                        (["name-regex(Default/.+Dense/Mat.+)"], "MatMul")])
def test_graph_l2_kernel_list(tmp_path, kernels, op):
    run_net(tmp_path, {"task": "tensor", "dump_path": "./dump", "level": "L2", "step": [0],
                       "tensor": {"list": kernels}}, "graph_forward", "--steps", "1")
    files = iteration_dirs(tmp_path / "dump")[("0", "0")]
    assert files and all(f.startswith(op + ".") for f in files), files


def test_graph_l2_statistics_malformed_file_is_reported_and_kept(tmp_path):
    r = run_net(tmp_path, {"task": "statistics", "dump_path": "./dump", "level": "L2"},
                "graph_forward", "--junk")
    assert "DONE" in r.stdout and r.returncode == 0
    folder = tmp_path / "dump" / "rank_0" / "Net" / "0" / "0"
    junk = "Junk.Default_Junk-op0.0.0.1.input.0.DefaultFormat.Float32.npy"
    assert (folder / junk).exists()
    assert f"{junk}: not an .npy file" in r.stderr
    assert len(read_stats(folder / "statistic.csv")) > 1


# ---- PyNative: only the jit parts ------------------------------------------------------------

def test_pynative_l2_dumps_only_jit_kernels(tmp_path):
    r = run_net(tmp_path, {"task": "tensor", "dump_path": "./dump", "level": "L2"}, "pynative_jit",
                "--steps", "2")
    assert "DONE" in r.stdout
    dump = tmp_path / "dump"
    assert (dump / "kernel_kbyk_dump.json").is_file()
    assert not os.path.exists(dump / "step0")  # no Python hooks, no dump.json
    dirs = iteration_dirs(dump)
    files = [f for fs in dirs.values() for f in fs]
    ops_seen = {f.split(".")[0] for f in files}
    assert "MatMul" in ops_seen
    assert not ops_seen & {"Exp", "Sin"}, ops_seen  # the PyNative operations are not dumped
    # The jit function's input a = exp(x).
    a_files = [(k, f) for k, fs in dirs.items() for f in fs
               if f.startswith("Parameter.a.") or (f.startswith("MatMul.") and ".input.0." in f)]
    k, f = a_files[0]
    arr = np.load(dump / "rank_0" / "Net" / k[0] / k[1] / f, allow_pickle=False)
    np.testing.assert_allclose(arr, np.exp(X), rtol=1e-5)  # MindSpore CPU exp


def test_pynative_l2_statistics(tmp_path):
    run_net(tmp_path, {"task": "statistics", "dump_path": "./dump", "level": "L2"}, "pynative_jit",
            "--steps", "2")
    dirs = iteration_dirs(tmp_path / "dump")
    assert dirs and all(files == ["statistic.csv"] for files in dirs.values())


# ---- errors and warnings ---------------------------------------------------------------------

@pytest.mark.parametrize("level,name", [("L0", "cell"), ("L1", "api"), ("mix", "api")])
def test_graph_mode_other_levels_raise_the_original_error(tmp_path, level, name):
    write_config(tmp_path, {"task": "statistics", "dump_path": "./dump", "level": level})
    r = run_python(START, "graph", cwd=tmp_path, check=False)
    assert r.returncode != 0
    assert (f"Data dump is not supported in graph_kbyk mode when dump level is {name}."
            in r.stderr.splitlines()[-1])


def test_l2_data_mode_must_be_one_of_all_input_output(tmp_path):
    write_config(tmp_path, {"task": "statistics", "dump_path": "./dump", "level": "L2",
                            "statistics": {"data_mode": ["forward"]}})
    r = run_python(START, "graph", cwd=tmp_path, check=False)
    assert r.returncode != 0
    assert ('"statistics.data_mode" must be exactly one of all, input, output when "level" is L2'
            in r.stderr.splitlines()[-1])


def test_graph_o2_refuses_kbk_mode(tmp_path):
    write_config(tmp_path, {"task": "tensor", "dump_path": "./dump", "level": "L2"})
    r = run_python(START, "graph_o2", cwd=tmp_path, check=False, env={"GRAPH_OP_RUN": "1"})
    assert r.returncode != 0 and "Must run in graph mode, not kbk mode" in r.stderr.splitlines()[-1]


def test_pynative_l2_single_api_name_needs_adump(tmp_path):
    write_config(tmp_path, {"task": "tensor", "dump_path": "./dump", "level": "L2",
                            "tensor": {"list": ["Functional.relu.0.forward"]}})
    r = run_python(START, "pynative", cwd=tmp_path)
    assert ("The current msprobe package does not compile adump, and kernel dump cannot be used."
            in r.stderr)
    assert not (tmp_path / "dump" / "kernel_kbyk_dump.json").exists()


def test_start_after_the_first_graph_warns(tmp_path):
    r = run_net(tmp_path, {"task": "tensor", "dump_path": "./dump", "level": "L2"}, "graph_forward",
                "--late", "--steps", "1")
    assert "DONE" in r.stdout
    assert not any(n.startswith("rank_") for n in os.listdir(tmp_path / "dump"))
    assert "MindSpore wrote no kernel dump under" in r.stderr
    assert "before the network's first graph" in r.stderr
