"""Task free_benchmark on MindSpore PyNative (docs/free_benchmark.md), with real MindSpore on CPU:
free_benchmark.csv against 1.2.1's (tests/fixtures/free_benchmark_1.2.1_mindspore, README there),
training left alone by `check`, changed by `fix`, the ill-conditioned API flagged and the others
not, the summary and the end line, and the config refusals."""
import csv
import json
import os

import pytest
from ms_helpers import HERE, run_python
from tolerances import close

FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "free_benchmark_1.2.1_mindspore")
with open(os.path.join(HERE, "fb_cases.json")) as f:
    CASES = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
HEADER = ["rank", "pert_type", "stage", "step", "api_name", "max_rel", "dtype", "shape", "output_index"]
NET = os.path.join(HERE, "fb_net.py")


def read_rows(path):
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == HEADER
    return rows[1:]


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def run_net(tmp_path, section, *args, check=True):
    cfg = {"task": "free_benchmark", "dump_path": "./dump", "rank": [], "step": [], "level": "L1",
           "free_benchmark": section}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    return run_python(NET, "config.json", *args, cwd=str(tmp_path), check=check)


def same_row(ours, golden):
    if ours[:5] + ours[6:] != golden[:5] + golden[6:]:
        return False
    return ours[5] == golden[5] or close(1 + float(ours[5]), 1 + float(golden[5]), golden[6])


@pytest.mark.parametrize("name", sorted(n for n in CASES if not CASES[n].get("original_differs")))
def test_rows_match_original(tmp_path, name):
    case = CASES[name]
    golden = read_rows(os.path.join(FIXTURES, name, "free_benchmark.csv")) or []
    r = run_net(tmp_path, case["section"], *case["args"])
    ours = read_rows(str(tmp_path / "dump" / "free_benchmark.csv")) or []
    assert len(ours) == len(golden), f"{name}:\nours {ours}\n1.2.1 {golden}"
    for o, g in zip(ours, golden):
        assert same_row(o, g), f"{name}: ours {o} != 1.2.1 {g}"
    # check and fix: the losses 1.2.1 printed (fix: the improved outputs of 1.2.1 and ours).
    with open(os.path.join(FIXTURES, name, "stdout.txt")) as f:
        expected = [float(line["loss"]) for line in json_lines(f.read()) if "loss" in line]
    got = [float(line["loss"]) for line in json_lines(r.stdout) if "loss" in line]
    dtype = case["args"][case["args"].index("--dtype") + 1] if "--dtype" in case["args"] else "float32"
    assert len(got) == len(expected) and all(close(a, b, dtype) for a, b in zip(got, expected)), (got, expected)


def test_backward_stage_compares_real_gradients(tmp_path):
    """1.2.1 writes no row here (fb_cases.json: original_differs); ours flags the input gradients
    that change_value moves: linear's weight and mul's second factor (output_index 1)."""
    assert read_rows(os.path.join(FIXTURES, "backward_change_value", "free_benchmark.csv")) is None
    case = CASES["backward_change_value"]
    run_net(tmp_path, case["section"], *case["args"])
    rows = read_rows(str(tmp_path / "dump" / "free_benchmark.csv"))
    assert {(r[4], r[2], r[6], r[7], r[8]) for r in rows} == {
        ("MintFunctional.linear.0", "backward", "Float32", "(4, 32)", "1"),
        ("Mint.mul.0", "backward", "Float32", "(5, 4)", "1")}
    assert [r[3] for r in rows] == ["0", "0", "1", "1"]


@pytest.mark.parametrize("section,args", [
    ({"pert_mode": "change_value"}, ()), ({"pert_mode": "change_value"}, ("--dtype", "float16")),
    ({"pert_mode": "bit_noise"}, ("--dtype", "float16")),
    ({"pert_mode": "change_value", "fuzz_stage": "backward"}, ())])
def test_host_measure_equals_device_measure(tmp_path, section, args):
    """The C++ measure over host tensors (CPU) writes the rows that MindSpore's own kernels give
    on the device path (MSPROBE_FORCE_DEVICE_PATH runs it on CPU tensors), to the bit."""
    host, device = tmp_path / "host", tmp_path / "device"
    host.mkdir()
    device.mkdir()
    run_net(host, section, *args)
    cfg = (host / "config.json").read_text()
    (device / "config.json").write_text(cfg)
    run_python(NET, "config.json", *args, cwd=str(device), env={"MSPROBE_FORCE_DEVICE_PATH": "1"})
    rows = read_rows(str(host / "dump" / "free_benchmark.csv"))
    assert rows and rows == read_rows(str(device / "dump" / "free_benchmark.csv"))


def test_parity_is_not_vacuous():
    with_rows = [n for n in CASES if read_rows(os.path.join(FIXTURES, n, "free_benchmark.csv"))]
    assert len(with_rows) >= 3


def test_check_leaves_training_bit_identical(tmp_path):
    """bit_noise and change_value in both stages: the losses and the trained parameters are
    those of a run without the probe, to the bit."""
    plain = json_lines(run_net(tmp_path, {}, "--no-probe").stdout)
    for section in ({"pert_mode": "bit_noise"}, {"pert_mode": "change_value"},
                    {"pert_mode": "change_value", "fuzz_stage": "backward"}):
        work = tmp_path / section["pert_mode"] / section.get("fuzz_stage", "forward")
        work.mkdir(parents=True)
        assert json_lines(run_net(work, section).stdout) == plain, section


def test_ill_conditioned_api_flagged_well_conditioned_not(tmp_path):
    run_net(tmp_path, {"pert_mode": "bit_noise"})
    rows = read_rows(str(tmp_path / "dump" / "free_benchmark.csv"))
    assert {r[4] for r in rows} == {"Mint.sub.0"}  # not linear, relu, mul or mean
    assert all(r[0] == "" and r[1] == "bit_noise" and r[6] == "Float32" and r[7] == "(5, 4)" for r in rows)
    summary = json.loads((tmp_path / "dump" / "free_benchmark_summary.json").read_text())
    assert summary["framework"] == "mindspore" and summary["flagged_outputs"] == 2
    top = summary["apis"][0]
    assert top["api"] == "Mint.sub" and top["worst_call"] == "Mint.sub.0" and top["times_limit"] > 1000
    assert top["source"]["file"].endswith("fb_net.py") and "mint.sub" in top["source"]["text"]


def test_end_line_and_report_page(tmp_path):
    r = run_net(tmp_path, {"pert_mode": "bit_noise"})
    line = [ln for ln in (r.stdout + r.stderr).splitlines() if "free_benchmark:" in ln and "checked" in ln]
    assert line and "1 API flagged" in line[0] and "Mint.sub" in line[0]
    page = tmp_path / "page.html"
    run_python("import sys; from msprobe.cli import main; sys.argv = ['msprobe', 'report', 'dump', '-o', "
               f"{str(page)!r}]; main()", cwd=str(tmp_path))
    html = page.read_text()
    assert "Mint.sub" in html and "fb_net.py" in html


def test_fix_changes_what_training_sees(tmp_path):
    """fix with improve_precision on a float16 model: linear's float32 result (rounded once)
    replaces its float16 one, and the losses move."""
    plain = json_lines(run_net(tmp_path, {}, "--no-probe", "--dtype", "float16").stdout)
    fixed = json_lines(run_net(tmp_path, {"pert_mode": "improve_precision", "handler_type": "fix"},
                               "--dtype", "float16").stdout)
    assert [line["hidden"] for line in fixed[:-1]] != [line["hidden"] for line in plain[:-1]]
    assert not (tmp_path / "dump" / "free_benchmark.csv").exists()


@pytest.mark.parametrize("section,message", [
    ({"pert_mode": "to_cpu"}, "free_benchmark.pert_mode"),
    ({"fuzz_device": "cpu"}, "free_benchmark.fuzz_device"),
    ({"pert_mode": "bit_noise", "handler_type": "fix"}, "must be improve_precision when"),
    ({"handler_type": "fix", "fuzz_stage": "backward"}, "must be forward when"),
])
def test_refused_before_training(tmp_path, section, message):
    r = run_net(tmp_path, section, check=False)
    assert r.returncode != 0
    assert message in r.stderr
    assert "loss" not in r.stdout


def test_preheat_settings_warned_and_ignored(tmp_path):
    r = run_net(tmp_path, {"pert_mode": "bit_noise", "if_preheat": True, "preheat_step": 2, "max_sample": 3})
    assert "'if_preheat', 'preheat_step' and 'max_sample' settings are not supported" in r.stdout + r.stderr
    assert len(read_rows(str(tmp_path / "dump" / "free_benchmark.csv"))) == 2


def test_level_l0_refused(tmp_path):
    cfg = {"task": "free_benchmark", "dump_path": "./dump", "level": "L0", "free_benchmark": {}}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    r = run_python(NET, "config.json", cwd=str(tmp_path), check=False)
    assert r.returncode != 0 and "Task free_benchmark is not supported in this mode: pynative." in r.stderr
