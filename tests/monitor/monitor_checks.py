"""Shared checks of the monitor tests: running monitor_net.py, finding a rank's folder, and csv
files compared with 1.2.1's (layout and names exactly, numbers within the kernels' tolerance and
the file's rounding), and alerts compared with 1.2.1's where one may sit on its threshold."""
import csv
import glob
import json
import os
import re
import sys
import warnings

from conftest import run_python
from tolerances import kernel_rtol

HERE = os.path.dirname(os.path.abspath(__file__))
NET = os.path.join(HERE, "monitor_net.py")


def run_net(work, config, *args, env=None, check=True):
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(config, f)
    return run_python(NET, "--config", "config.json", *args, cwd=str(work),
                      env=dict({"MONITOR_OUTPUT_DIR": "out"}, **(env or {})), check=check)


def losses(stdout):
    return [line for line in stdout.splitlines() if line.startswith("step ")]


def assert_same_steps(ours, theirs):
    """Our losses against a 1.2.1 run's: the same steps. Their values depend on the CPU's kernels
    and drift apart over steps (these stand-ins square large sums), so the values are compared
    where they are bit for bit: our runs with and without the monitor."""
    assert [line.split(" loss")[0] for line in ours] == [line.split(" loss")[0] for line in theirs]


def rank_dirs(out):
    return sorted(glob.glob(os.path.join(str(out), "*-rank*-*")))


def the_rank_dir(out, rank=0):
    (d,) = glob.glob(os.path.join(str(out), f"*-rank{rank}-*"))
    return d


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def _number(text):
    return float(text)   # "nan", "inf" and "-inf" included


def assert_close(ours, theirs, ndigits, where, abs_tol=0.0):
    a, b = _number(ours), _number(theirs)
    if a != a or b != b or a in (float("inf"), float("-inf")) or b in (float("inf"), float("-inf")):
        assert ours == theirs, where
        return
    # A value rounded to ndigits may land on the other side of a rounding boundary.
    tol = 10.0 ** -ndigits + kernel_rtol("float32") * max(abs(a), abs(b)) + abs_tol
    assert abs(a - b) <= tol, f"{where}: {ours} vs 1.2.1's {theirs}"


def assert_csv_as_original(ours_dir, golden_dir, ndigits, abs_tol=0.0, zeros_tol=0.0):
    """abs_tol: added to every value's tolerance; zeros_tol: to the "zeros" shares' (a share of
    elements below eps, which moves by whole elements when a kernel's last bit crosses eps)."""
    ours = sorted(os.listdir(ours_dir))
    assert ours == sorted(os.listdir(golden_dir))
    for name in ours:
        a, b = read_csv(os.path.join(ours_dir, name)), read_csv(os.path.join(golden_dir, name))
        assert a[0] == b[0], f"{name}: header"
        assert len(a) == len(b), f"{name}: rows"
        first_number = a[0].index("step") + 1
        for ra, rb in zip(a[1:], b[1:]):
            assert ra[:first_number] == rb[:first_number], f"{name}: names and step"
            assert len(ra) == len(rb)
            for col, (x, y) in enumerate(zip(ra[first_number:], rb[first_number:]), first_number):
                # "other" rows (the collectives) are longer than their header.
                ops = a[0][first_number:]
                op = ops[(col - first_number) % len(ops)]
                column = a[0][col] if col < len(a[0]) else f"column {col} ({op})"
                assert_close(x, y, ndigits, f"{name} {ra[:first_number]} {column}",
                             abs_tol + (zeros_tol if op == "zeros" else 0.0))


sys.path.insert(0, HERE)



def tensorboard_series(rank_dir):
    """{"{tag}_{op}": {step: value}} of a rank folder written with format "tensorboard"."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    acc = EventAccumulator(str(rank_dir), size_guidance={"scalars": 0})
    acc.Reload()
    return {t: {e.step: e.value for e in acc.Scalars(t)} for t in acc.Tags()["scalars"]}


def alert_op(alert):
    """The statistic an anomaly.json record alerts on, from 1.2.1's message."""
    return re.search(r", '([^']*)'\) at step", alert["message"])[1]


def on_threshold(series, alert, threshold):
    """Whether an alert (an anomaly.json record) is decided by the CPU's kernels: its value lies
    within the kernels' tolerance of the boundary baseline * (1 + threshold), the baseline being the
    mean of the earlier steps' values. series: {"{tag}_{op}": {step: value}}, the run's statistics
    (its TensorBoard scalars). As in tests/tolerances.py, a statistic is off by ulps of the
    tensor's elements (max(|min|, |max|) where the run has them), not of itself: a mean near zero
    is a sum that cancels."""
    tag, op, step = alert["tag_name"], alert_op(alert), alert["step"]
    values = series[f"{tag}_{op}"]

    def scale(s):
        elements = [abs(series[f"{tag}_{o}"][s]) for o in ("min", "max") if f"{tag}_{o}" in series]
        return max([abs(values[s])] + elements)

    earlier = [s for s in values if s < step]
    if not earlier or op in ("zeros", "nans"):   # no baseline yet; shares of whole elements
        return False
    baseline = sum(values[s] for s in earlier) / len(earlier)
    distance = abs(values[step] - baseline * (1 + threshold))
    return distance <= kernel_rtol("float32") * (scale(step) + (1 + threshold) * max(scale(s) for s in earlier))


def borderline_alerts(golden, ours, on_boundary):
    """Alert keys (anomaly.json's) where ours and the golden differ, each one on its threshold
    (on_boundary(key) true). An alert that differs and is not on its threshold, a clear one, fails
    with its name. The borderline ones are named in a warning and returned."""
    differ = set(golden) ^ set(ours)
    clear = sorted(k for k in differ if not on_boundary(k))
    assert not clear, ("alerts that differ from the golden's and are not on their threshold "
                       f"(only ours: {sorted(set(ours) - set(golden))}, only the golden's: "
                       f"{sorted(set(golden) - set(ours))}; clear: {clear})")
    for key in sorted(differ):
        warnings.warn(f"monitor alert {key} lies on its threshold on this CPU "
                      f"({'ours only' if key in ours else 'the golden only'}); accepted either way")
    return differ
