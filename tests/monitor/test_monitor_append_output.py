"""append_output [time_start, time_end] (1.2.1's module_hook / get_target_output_dir): a resumed
run adds its files to the rank folder an earlier run made in that time range; a csv file of the
same steps gets more rows under its one header."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from monitor_checks import rank_dirs, read_csv  # noqa: E402
from monitor_net import Net, batch  # noqa: E402

from msprobe.pytorch import TrainerMon  # noqa: E402

CONFIG = {"wg_distribution": True, "ops": ["norm"], "format": "csv", "step_count_per_record": 4}


def run(work, config, start_iteration, steps):
    path = work / "c.json"
    path.write_text(json.dumps(config))
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    mon = TrainerMon(str(path))
    mon.monitor_gnorm_with_ad(model, optimizer=opt, start_iteration=start_iteration)
    for step in range(start_iteration, start_iteration + steps):
        opt.zero_grad()
        (model(batch(step)) * torch.tensor([[1.0, -2.0]])).sum().backward()
        opt.step()
    return mon


def time_tag(folder):
    return os.path.basename(folder).split("-rank")[0]


def test_a_resumed_run_appends_rows_to_the_earlier_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("MONITOR_OUTPUT_DIR", str(tmp_path / "out"))
    run(tmp_path, CONFIG, 0, 2)                      # steps 0, 1 into grad_reduced_0-3.csv
    (first,) = rank_dirs(tmp_path / "out")
    tag = time_tag(first)
    mon = run(tmp_path, dict(CONFIG, append_output=[tag, tag]), 2, 3)   # steps 2, 3, 4
    assert mon.tensorboard_dir == first
    assert rank_dirs(tmp_path / "out") == [first]
    assert sorted(os.listdir(first)) == ["grad_reduced_0-3.csv", "grad_reduced_4-7.csv",
                                         "grad_unreduced_0-3.csv", "grad_unreduced_4-7.csv"]
    rows = read_csv(os.path.join(first, "grad_reduced_0-3.csv"))
    assert rows[0] == ["vpp_stage", "param_name", "step", "norm"]
    assert [r for r in rows[1:] if r[0] == "vpp_stage"] == []   # the header once
    assert [int(r[2]) for r in rows[1:]] == [0] * 6 + [1] * 6 + [2] * 6 + [3] * 6
    assert read_csv(os.path.join(first, "grad_reduced_4-7.csv"))[0] == rows[0]


def test_no_folder_in_the_range_is_a_warning_and_a_new_folder(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("MONITOR_OUTPUT_DIR", str(tmp_path / "out"))
    (tmp_path / "out" / "Dec03_21-34-40-rank1-0000abcd").mkdir(parents=True)   # another rank's
    mon = run(tmp_path, dict(CONFIG, append_output=["Dec03_21-34-40", "Dec03_21-34-40"]), 0, 1)
    assert not mon.disabled
    warn = [line for line in capfd.readouterr().err.splitlines() if "append_output" in line]
    assert len(warn) == 1 and "no folder of rank 0" in warn[0]
    assert len(rank_dirs(tmp_path / "out")) == 2 and os.listdir(mon.tensorboard_dir)


def test_a_bad_timestamp_is_one_line_and_the_monitor_is_off(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("MONITOR_OUTPUT_DIR", str(tmp_path / "out"))
    mon = run(tmp_path, dict(CONFIG, append_output=["Dec03", "Dec04_01-00-00"]), 0, 1)
    assert mon.disabled
    err = [line for line in capfd.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and '"append_output": illegal timestamp: Dec03' in err[0], err
    assert not (tmp_path / "out").exists()
