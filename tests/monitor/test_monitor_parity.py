"""TrainerMon against the ORIGINAL 1.2.1's files on the same run (tests/fixtures/monitor_1.2.1,
made by make_monitor_fixtures.py): csv names, columns and values, anomaly.json and
anomaly_analyse.json, TensorBoard scalars read back with EventAccumulator; ours with the default
arguments and with the ones 1.2.1 needed on plain PyTorch. Losses are those of the run without
the monitor, bit for bit."""
import json
import os
import re
import shutil
import sys

import pytest
from conftest import TESTS_DIR, run_python
from tolerances import kernel_rtol

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_monitor_fixtures import CASES  # noqa: E402
from monitor_checks import (  # noqa: E402
    alert_op,
    assert_csv_as_original,
    borderline_alerts,
    losses,
    on_threshold,
    run_net,
    tensorboard_series,
    the_rank_dir,
)

FIXTURES = os.path.join(TESTS_DIR, "fixtures", "monitor_1.2.1")


def golden(case, name):
    with open(os.path.join(FIXTURES, case, name)) as f:
        return f.read()


@pytest.mark.parametrize("as_121", [False, True], ids=["defaults", "121-arguments"])
@pytest.mark.parametrize("case", ["all", "targets", "grad_acc"])
def test_csv_as_original(tmp_path, case, as_121, device_path):
    config, net_args = CASES[case]
    run = run_net(tmp_path / "on", config, *net_args, *(["--as-121"] if as_121 else []))
    plain = run_net(tmp_path / "off", config, *net_args, "--no-monitor")
    assert losses(run.stdout) == losses(plain.stdout)          # training unchanged, bit for bit
    assert len(losses(run.stdout)) == len(losses(golden(case, "stdout.txt")))
    assert_csv_as_original(the_rank_dir(tmp_path / "on" / "out"), os.path.join(FIXTURES, case, "rank0"),
                           config.get("ndigits", 6))


class AlertRuns:
    """The "all" case run once with csv files and its alerts, and once more with its statistics as
    TensorBoard scalars (no rounding) to tell which alerts sit on their threshold."""

    def __init__(self, tmp_path_factory):
        self.config, self.net_args = CASES["all"]
        self.threshold = self.config["alert"]["rules"][0]["args"]["threshold"]
        self.factory, self.done = tmp_path_factory, {}

    def get(self):
        if "ours" not in self.done:
            work = self.factory.mktemp("alerts")
            proc = run_net(work, self.config, *self.net_args)
            with open(work / "out" / "anomaly_detected" / "rank0" / "anomaly.json") as f:
                text = f.read()
            self.done["ours"] = (work, proc, text, json.loads(text))
        return self.done["ours"]

    def series(self):
        if "series" not in self.done:
            work = self.factory.mktemp("series")
            run_net(work, dict(self.config, format="tensorboard"), *self.net_args)
            self.done["series"] = tensorboard_series(the_rank_dir(work / "out"))
        return self.done["series"]

    def borderline(self):
        """(1.2.1's alerts, the keys where ours and 1.2.1's differ, all on their threshold)."""
        theirs, ours = json.loads(golden("all", "anomaly_detected/rank0/anomaly.json")), self.get()[3]
        alerts = dict(theirs, **ours)
        if set(theirs) == set(ours):
            return theirs, set()
        return theirs, borderline_alerts(theirs, ours, lambda k: on_threshold(self.series(), alerts[k],
                                                                            self.threshold))


@pytest.fixture(scope="module")
def alert_runs(tmp_path_factory):
    return AlertRuns(tmp_path_factory)


def test_anomaly_files_as_original(alert_runs, tmp_path):
    """anomaly.json and anomaly_analyse.json as 1.2.1's, but for alerts on their threshold."""
    work, _, text, ours = alert_runs.get()
    theirs, borderline = alert_runs.borderline()
    assert text == json.dumps(ours, indent=1)   # json.dump(indent=1) layout
    if not borderline:
        assert text == golden("all", "anomaly_detected/rank0/anomaly.json")
    assert [(k, v) for k, v in ours.items() if k not in borderline] == \
        [(k, v) for k, v in theirs.items() if k not in borderline]
    analyse = "import sys; from msprobe.pytorch.monitor.anomaly_analyse import main; sys.exit(main())"
    r = run_python(analyse, "-d", str(work / "out" / "anomaly_detected"), "-k", "5")
    with open(work / "out" / "anomaly_detected" / "anomaly_analyse.json") as f:
        top = f.read()
    if borderline:   # our analysis of 1.2.1's own alerts, then ours: the first 5 of our alerts
        shutil.copytree(os.path.join(FIXTURES, "all", "anomaly_detected"), tmp_path / "theirs")
        run_python(analyse, "-d", str(tmp_path / "theirs"), "-k", "5")
        with open(tmp_path / "theirs" / "anomaly_analyse.json") as f:
            assert f.read() == golden("all", "anomaly_analyse.json")
        assert len(json.loads(top)) == 5 and set(json.loads(top)) <= set(ours)
    else:
        assert top == golden("all", "anomaly_analyse.json")
    first = json.loads(top)
    assert next(iter(first.values()))["message"] in r.stderr


def alert_line_part(tag, op, step):
    """What our one-line alert says of 1.2.1's (tag, op, step)."""
    module, _, what = tag.partition("/")
    what = what.rsplit("/", 1)[-1] + " " if what else ""
    return f"monitor alert: rank 0, step {step}, {module}, {what}{op} "


def test_alert_is_one_line_naming_module_statistic_step_rank(alert_runs):
    """One line per alert, the same alerts in the same order as 1.2.1's log lines, but for alerts
    on their threshold."""
    _, r, _, ours_alerts = alert_runs.get()
    theirs_alerts, borderline = alert_runs.borderline()
    alerts = dict(theirs_alerts, **ours_alerts)
    skip = {alert_line_part(alerts[k]["tag_name"], alert_op(alerts[k]), alerts[k]["step"]) for k in borderline}
    ours = [line for line in r.stderr.splitlines() if "monitor alert" in line]
    ours = [line for line in ours if not any(part in line for part in skip)]
    theirs = re.findall(r"signal in \('([^']*)', '([^']*)'\) at step (\d+)", golden("all", "stdout.txt"))
    theirs = [t for t in theirs if alert_line_part(*t) not in skip]
    assert len(ours) == len(theirs) > 0
    for line, (tag, op, step) in zip(ours, theirs):
        assert alert_line_part(tag, op, step) in line, (line, tag, op, step)


def test_borderline_alert_accepted_clear_one_not():
    """The rule of the two tests above: a flip of an alert on its threshold passes and is named,
    a flip of any other fails. On made-up statistics, threshold 0.5: steps 0 and 1 give the
    baseline 1.0, so the boundary at step 2 is 1.5, and the elements reach 4.0."""
    series = {"t_mean": {0: 0.5, 1: 1.5, 2: 1.5 + 3e-5}, "t_min": {0: -4.0, 1: -4.0, 2: -4.0},
              "t_max": {0: 4.0, 1: 4.0, 2: 4.0}, "u_norm": {0: 1.0, 1: 1.0, 2: 1.5 + 3e-5}}

    def alert(tag, op):
        return {"tag_name": tag, "step": 2,
                "message": f"Rule AnomalyTurbulence reports anomaly signal in ('{tag}', '{op}') at step 2."}

    alerts = {"a": alert("t", "mean"), "b": alert("u", "norm")}
    # the mean: 3e-5 from the boundary, within 64 ulps of the elements' 4.0 (about 6e-5)
    assert on_threshold(series, alerts["a"], 0.5)
    # the norm: its own scale, 1.5, gives about 2.3e-5: 3e-5 is clear of it
    assert not on_threshold(series, alerts["b"], 0.5)

    def on_boundary(key):
        return on_threshold(series, alerts[key], 0.5)

    with pytest.warns(UserWarning, match="monitor alert a lies on its threshold"):
        assert borderline_alerts({"a", "b"}, {"b"}, on_boundary) == {"a"}
    with pytest.raises(AssertionError, match=r"clear: \['b'\]"):
        borderline_alerts({"a", "b"}, {"a"}, on_boundary)


def test_tensorboard_as_original(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    config, net_args = CASES["tensorboard"]
    run_net(tmp_path, config, *net_args)
    acc = EventAccumulator(the_rank_dir(tmp_path / "out"))
    acc.Reload()
    ours = {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in sorted(acc.Tags()["scalars"])}
    theirs = json.loads(golden("tensorboard", "tensorboard.json"))
    assert sorted(ours) == sorted(theirs)
    for t in theirs:
        assert [s for s, _ in ours[t]] == [s for s, _ in theirs[t]], t
        for (_, a), (_, b) in zip(ours[t], theirs[t]):
            assert abs(a - b) <= 64 * kernel_rtol("float32") * max(abs(a), abs(b), 1e-30), (t, a, b)


def test_regenerate_fixtures(request, tmp_path):
    """--regenerate-original PYTHON rewrites the fixtures with 1.2.1."""
    original = request.config.getoption("--regenerate-original")
    if not original:
        pytest.skip("needs --regenerate-original")
    out = tmp_path / "fixtures"
    run_python(os.path.join(os.path.dirname(__file__), "make_monitor_fixtures.py"), "--python", original,
               "--out", str(out))
    shutil.rmtree(FIXTURES)
    shutil.copytree(out, FIXTURES)


def test_csv2tensorboard_by_step_as_original(tmp_path):
    """1.2.1's csv files of the run converted by ours give 1.2.1's scalars, value for value."""
    pytest.importorskip("tensorboard")
    from make_monitor_fixtures import CSV2TB_RUN
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from msprobe.pytorch.monitor.csv2tb import csv2tensorboard_by_step
    shutil.copytree(os.path.join(FIXTURES, "all", "rank0"), tmp_path / "runs" / CSV2TB_RUN)
    shutil.copytree(os.path.join(FIXTURES, "all", "rank0"), tmp_path / "runs" / "Dec03_21-40-00-rank1-00000000")
    out = csv2tensorboard_by_step(str(tmp_path / "runs"), time_start="Dec03_21-34-40", time_end="Dec03_21-34-40",
                                  output_dirpath=str(tmp_path / "tb"))
    assert os.listdir(out) == ["rank0"]   # rank1's folder is outside the time range
    ours = {}
    for data_type in sorted(os.listdir(tmp_path / "tb" / "rank0")):
        acc = EventAccumulator(str(tmp_path / "tb" / "rank0" / data_type))
        acc.Reload()
        ours[data_type] = {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in sorted(acc.Tags()["scalars"])}
    ours = json.loads(json.dumps(ours))
    theirs = json.loads(golden("all", "../csv2tb.json"))
    assert sorted(ours) == sorted(theirs)
    for data_type in theirs:
        assert sorted(ours[data_type]) == sorted(theirs[data_type])
        for t, points in theirs[data_type].items():
            # 1.2.1 never closes its writer, so the last events of a data type may be lost
            # (docs/compatibility.md); every one it wrote is ours too, and ours has all 4 steps.
            assert ours[data_type][t][:len(points)] == points, (data_type, t)
            assert [s for s, _ in ours[data_type][t]] == ([1, 2, 3] if data_type.startswith("exp_avg")
                                                          else [0, 1, 2, 3])
    with pytest.raises(ValueError, match="data type"):
        csv2tensorboard_by_step(str(tmp_path / "runs"), data_type_list=["weights"])


def test_print_struct_as_original_and_training_goes_on(tmp_path):
    """module_struct.json as 1.2.1 writes it; 1.2.1 then stops training with an exception, ours
    stops monitoring and the run finishes with unchanged losses."""
    from make_monitor_fixtures import PRINT_STRUCT
    run = run_net(tmp_path / "on", PRINT_STRUCT, "--steps", "3")
    plain = run_net(tmp_path / "off", PRINT_STRUCT, "--steps", "3", "--no-monitor")
    assert losses(run.stdout) == losses(plain.stdout) and len(losses(run.stdout)) == 3
    with open(tmp_path / "on" / "out" / "module_struct.json") as f:
        assert f.read() == golden("print_struct", "module_struct.json")
    assert "print_struct is done" in run.stderr
