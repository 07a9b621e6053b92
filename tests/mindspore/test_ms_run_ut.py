"""MindSpore's run_ut and multi_run_ut against the files 1.2.1 wrote for the same dumps
(tests/fixtures/ms_run_ut_1.2.1/README.md says how they were made), resume after a kill, and the
one-line errors. Runs `msprobe -f mindspore ...` in MindSpore's interpreter with torch
(MSPROBE_MS_TORCH_PYTHON: build/ms-torch-venv, see scripts/mindspore_env.sh), and the message
for a missing torch in the one without it (MSPROBE_MS_PYTHON: build/ms-venv)."""
import csv
import glob
import json
import os
import shutil
import signal
import subprocess
import time

import pytest
from ms_helpers import MS_PYTHON, MS_TORCH_PYTHON, has_torch, ms_env, run_python, tensors
from tolerances import close, stat_scale

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                        "ms_run_ut_1.2.1")
METRICS = ("Cosine", "MaxAbsErr", "MaxRelativeErr")
CLI = "import sys; from msprobe.cli import main; sys.exit(main(sys.argv[1:]))"


# The replays need torch beside MindSpore (where no interpreter has it, only the test of the
# one-line message runs).
needs_torch = pytest.mark.skipif(not has_torch(MS_TORCH_PYTHON),
                                 reason="torch is not importable in MSPROBE_MS_TORCH_PYTHON / MSPROBE_MS_PYTHON")


def msprobe(*args, cwd=None, check=True, env=None):
    return run_python(CLI, "-f", "mindspore", *args, cwd=cwd, check=check, env=env, timeout=600,
                      interpreter=MS_TORCH_PYTHON)


def read(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def outputs(out_dir):
    (result,) = glob.glob(os.path.join(out_dir, "accuracy_checking_result_*.csv"))
    return result, result.replace("accuracy_checking_result_", "accuracy_checking_details_")


def _scales(dump):
    """Magnitude of the values of each record ("Mint.add.0.forward"): the largest |Max| / |Min| of
    its tensors (tolerances.stat_scale)."""
    with open(dump) as f:
        data = json.load(f)["data"]
    return {name: max((stat_scale(t) for _, t in tensors(rec)), default=0.0) for name, rec in data.items()}


def assert_same_rows(ours, golden, dump):
    """Equal rows; the metric cells within the CPU kernels' tolerance. MaxAbsErr and
    MaxRelativeErr are differences of two kernels' results: on another CPU they move by ulps of
    the API's values (`dump`'s statistics), not of themselves (0.0 may become 3e-8)."""
    assert ours[0] == golden[0]
    assert [r[0] for r in ours] == [r[0] for r in golden]
    header = golden[0]
    scales = _scales(dump)
    for o, g in zip(ours[1:], golden[1:]):
        scale = scales.get(o[0].split(".output.")[0], 0.0)
        for name, a, b in zip(header, o, g):
            if name in METRICS and a and b:
                assert close(float(a), float(b), "float32", scale=(1.0 if name == "Cosine" else scale)), \
                    (o[0], name, a, b)
            else:
                assert a == b, (o[0], name, a, b)


@pytest.mark.parametrize("kind", ["tensor", "statistics"])
@needs_torch
def test_run_ut_matches_1_2_1(kind, tmp_path):
    dump = os.path.join(FIXTURES, f"{kind}_dump", "dump.json")
    msprobe("run_ut", "-api_info", dump, "-o", str(tmp_path))
    result, details = outputs(tmp_path)
    golden = os.path.join(FIXTURES, kind)
    assert_same_rows(read(result), read(os.path.join(golden, "accuracy_checking_result.csv")), dump)
    assert_same_rows(read(details), read(os.path.join(golden, "accuracy_checking_details.csv")), dump)
    with open(result, "rb") as f:
        assert f.read(3) == b"\xef\xbb\xbf"
    assert os.stat(result).st_mode & 0o777 == 0o640
    rows = {r[0]: r for r in read(result)}
    # 1.2.1's quirks kept: list inputs never get requires_grad, backward of integer outputs,
    # Tensor.transpose(0, 2, 1) replayed as torch.Tensor.transpose.
    assert rows["Mint.cat.0"][2] == "SKIP" and rows["Tensor.topk.0"][2] == "SKIP"
    assert rows["Tensor.transpose.0"][1:3] == ["SKIP", "SKIP"]


@needs_torch
def test_numpy_scalar_arguments_and_integer_outputs_as_1_2_1(tmp_path):
    # tests/mindspore/ms_run_ut_net.py --net quirks: numpy.float64 / numpy.int64 scalar arguments are
    # recorded with type "float64" / "numpy.int64", which 1.2.1's run_ut refuses (forward SKIP,
    # kept: docs/compatibility.md); the same calls with Python scalars are checked. Mint.max along
    # a dimension: backward SKIP (its integer indices get a gradient).
    dump = os.path.join(FIXTURES, "quirks_dump", "dump.json")
    msprobe("run_ut", "-api_info", dump, "-o", str(tmp_path))
    result, details = outputs(tmp_path)
    golden = os.path.join(FIXTURES, "quirks")
    assert_same_rows(read(result), read(os.path.join(golden, "accuracy_checking_result.csv")), dump)
    assert_same_rows(read(details), read(os.path.join(golden, "accuracy_checking_details.csv")), dump)
    rows = {r[0]: r for r in read(result)}
    for name in ("Mint.mul.0", "Mint.add.0", "Mint.clamp.0"):
        assert rows[name][1] == "SKIP" and "type field in api_info.json is not accepted" in rows[name][3]
    assert rows["Mint.mul.1"][1] == "pass"
    assert rows["Mint.max.0"][1:3] == ["pass", "SKIP"]


@needs_torch
def test_multi_run_ut_rows_in_dump_order_with_skips(tmp_path):
    dump = os.path.join(FIXTURES, "statistics_dump", "dump.json")
    msprobe("multi_run_ut", "-api_info", dump, "-o", str(tmp_path), "-d", "0", "1")
    result, details = outputs(tmp_path)
    single = os.path.join(FIXTURES, "statistics")
    # Same rows as one process (dump order, SKIP kept): 1.2.1's multi_run_ut wrote worker order
    # and dropped the SKIP rows (docs/compatibility.md).
    assert_same_rows(read(result), read(os.path.join(single, "accuracy_checking_result.csv")), dump)
    assert_same_rows(read(details), read(os.path.join(single, "accuracy_checking_details.csv")), dump)
    ours = {r[0]: r for r in read(result)}
    for row in read(os.path.join(FIXTURES, "multi", "accuracy_checking_result.csv"))[1:]:
        mine = ours[row[0]]
        assert [m if g else "" for m, g in zip(mine, row)] == row or "SKIP" in mine


@needs_torch
def test_resume_after_kill(tmp_path):
    dump = os.path.join(FIXTURES, "tensor_dump", "dump.json")
    env = ms_env()
    proc = subprocess.Popen([MS_TORCH_PYTHON, "-c", CLI, "-f", "mindspore", "run_ut", "-api_info", dump,
                             "-o", str(tmp_path)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    result = None
    while time.time() < deadline and proc.poll() is None:
        found = glob.glob(os.path.join(tmp_path, "accuracy_checking_result_*.csv"))
        if found and len(read(found[0])) >= 3:
            result = found[0]
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    result = result or outputs(tmp_path)[0]
    msprobe("run_ut", "-api_info", dump, "-csv_path", result)
    golden = os.path.join(FIXTURES, "tensor")
    assert_same_rows(read(result), read(os.path.join(golden, "accuracy_checking_result.csv")), dump)
    assert_same_rows(read(outputs(tmp_path)[1]), read(os.path.join(golden, "accuracy_checking_details.csv")), dump)


def _one_line_error(r, *words):
    lines = [ln for ln in r.stderr.splitlines() + r.stdout.splitlines() if "ERROR" in ln]
    assert r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in lines[0], lines[0]


@needs_torch
def test_bad_input_one_line(tmp_path):
    _one_line_error(msprobe("run_ut", "-api_info", str(tmp_path / "missing.json"), "-o", str(tmp_path),
                            check=False), "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"task": "tensor", "data": {"Mint.add.0.forward": ')
    _one_line_error(msprobe("run_ut", "-api_info", str(bad), "-o", str(tmp_path), check=False), "bad.json")
    pt = tmp_path / "pt" / "dump.json"
    pt.parent.mkdir()
    pt.write_text(json.dumps({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": None,
                              "data": {"Torch.add.0.forward": {"input_args": [], "input_kwargs": {},
                                                               "output": []}}}))
    _one_line_error(msprobe("run_ut", "-api_info", str(pt), "-o", str(tmp_path), check=False),
                    "PyTorch dump", "-f pytorch")
    other = tmp_path / "other" / "dump.json"
    other.parent.mkdir()
    other.write_text(json.dumps({"task": "statistics", "level": "L1", "framework": "mindspore",
                                 "dump_data_dir": None,
                                 "data": {"Functional.foo.0.forward": {"input_args": [], "input_kwargs": {},
                                                                       "output": []}}}))
    _one_line_error(msprobe("run_ut", "-api_info", str(other), "-o", str(tmp_path), check=False),
                    "no API to check")
    _one_line_error(msprobe("multi_run_ut", "-api_info", str(other), "-d", "0", "0", check=False),
                    "device id must be unique")


def test_without_torch_one_line(tmp_path):
    # MindSpore's interpreter of the tests has no torch (build/ms-venv); one given through
    # MSPROBE_MS_PYTHON that has it gets torch hidden from this process only.
    code = CLI if not has_torch(MS_PYTHON) else "import sys; sys.modules['torch'] = None; " + CLI
    dump = os.path.join(FIXTURES, "statistics_dump", "dump.json")
    r = run_python(code, "-f", "mindspore", "run_ut", "-api_info", dump, "-o", str(tmp_path), check=False)
    _one_line_error(r, "pip install torch")
    assert not os.listdir(tmp_path)


@pytest.mark.skipif(not os.environ.get("MSPROBE_MS_TORCH_PYTHON"),
                    reason="one MindSpore interpreter given (MSPROBE_MS_TORCH_PYTHON unset)")
def test_mindspore_tests_run_without_torch():
    # scripts/run_tests.sh: the MindSpore tests prove a MindSpore-only install (no torch, NumPy < 2),
    # the run_ut tests get torch; both see the same MindSpore and msprobe.
    code = ("import importlib.util as u, numpy, mindspore, msprobe.mindspore; "
            "print(u.find_spec('torch') is not None, numpy.__version__.split('.')[0], mindspore.__file__)")
    plain = run_python(code).stdout.split()
    with_torch = run_python(code, interpreter=MS_TORCH_PYTHON).stdout.split()
    assert plain[:2] == ["False", "1"] and with_torch[:2] == ["True", "1"]
    assert plain[2] == with_torch[2]


@needs_torch
def test_unknown_mint_api_is_skip_with_its_name(tmp_path):
    dump = tmp_path / "d" / "dump.json"
    dump.parent.mkdir()
    rec = {"input_args": [{"type": "mindspore.Tensor", "dtype": "Float32", "shape": [2], "Max": 1.0, "Min": 0.0}],
           "input_kwargs": {}, "output": [{"type": "mindspore.Tensor", "dtype": "Float32", "shape": [2],
                                           "Max": 1.0, "Min": 0.0}]}
    dump.write_text(json.dumps({"task": "statistics", "level": "L1", "framework": "mindspore",
                                "dump_data_dir": None, "data": {"Mint.no_such_api.0.forward": rec}}))
    msprobe("run_ut", "-api_info", str(dump), "-o", str(tmp_path))
    rows = read(outputs(tmp_path)[0])
    assert rows[1][:3] == ["Mint.no_such_api.0", "SKIP", ""]
    assert "mindspore.mint.no_such_api is not found" in rows[1][3]
    shutil.rmtree(dump.parent)


@needs_torch
def test_hostile_data_name_stays_inside_the_dump(tmp_path):
    dump = tmp_path / "d" / "dump.json"
    (dump.parent / "dump_tensor_data").mkdir(parents=True)
    secret = tmp_path / "secret.npy"
    secret.write_bytes(b"not for run_ut")
    rec = {"input_args": [{"type": "mindspore.Tensor", "dtype": "Float32", "shape": [2],
                           "data_name": "../../secret.npy"}],
           "input_kwargs": {}, "output": [{"type": "mindspore.Tensor", "dtype": "Float32", "shape": [2],
                                           "data_name": "/etc/passwd"}]}
    dump.write_text(json.dumps({"task": "tensor", "level": "L1", "framework": "mindspore",
                                "dump_data_dir": "dump_tensor_data", "data": {"Mint.abs.0.forward": rec}}))
    msprobe("run_ut", "-api_info", str(dump), "-o", str(tmp_path))
    rows = read(outputs(tmp_path)[0])
    assert rows[1][:2] == ["Mint.abs.0", "SKIP"]
    assert "secret.npy" in rows[1][3] or "outside" in rows[1][3], rows[1]
