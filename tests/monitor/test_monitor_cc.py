"""TrainerMon's cc_distribution on two gloo ranks (real processes, tests/monitor/monitor_cc_net.py):
the collectives' statistics as 1.2.1 writes them ("other" files, fixtures made by 1.2.1 with
tests/monitor/make_cc_fixtures.py), cc_pre_hook, cc_codeline, cc_log_only, steps not collected,
training unchanged and torch.distributed restored when the monitor stops."""
import glob
import json
import os
import sys

import pytest
from conftest import TESTS_DIR

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from monitor_cc_net import run_two_ranks  # noqa: E402
from monitor_checks import (  # noqa: E402
    assert_csv_as_original,
    assert_same_steps,
    borderline_alerts,
    losses,
    on_threshold,
    read_csv,
    run_net,
    tensorboard_series,
    the_rank_dir,
)
from tolerances import kernel_rtol  # noqa: E402

GOLDEN = os.path.join(TESTS_DIR, "fixtures", "monitor_1.2.1", "cc")
# On another CPU a value of the all-reduced gradients can cross zeros' eps (1e-8) by a last bit,
# which moves a step's averaged "zeros" share by a whole element: up to one element of the
# smallest tensor (48 elements) is allowed against 1.2.1's files.
ZEROS_FLIP_TOL = 1 / 48 + 1e-6
RUN_ARGS = ("--steps", "4")


def run(work, config, port, *args, env=None):
    results = run_two_ranks(sys.executable, str(work), config, port, *RUN_ARGS, *args,
                            env=dict({"PYTHONPATH": TESTS_DIR}, **(env or {})))
    for rank, (code, _, err) in enumerate(results):
        assert code == 0, f"rank {rank}: {err}"
    return results


def other_files(work, rank):
    d = the_rank_dir(os.path.join(str(work), "out"), rank)
    return {n: read_csv(os.path.join(d, n)) for n in sorted(os.listdir(d)) if n.startswith("other_")}


@pytest.fixture(scope="module")
def unmonitored(tmp_path_factory):
    results = run(tmp_path_factory.mktemp("off"), {}, 29681, "--no-monitor")
    return [losses(out) for _, out, _ in results]


@pytest.mark.parametrize("case, port, device_path", [("pre_hook", 29682, False), ("codeline", 29683, False),
                                                     ("alert", 29690, False), ("pre_hook", 29691, True)])
def test_as_121(tmp_path, case, port, device_path, unmonitored):
    """device_path: the CPU tensors take the accelerators' way to the core (host views through
    TorchDeviceRecorder), with the same files."""
    with open(os.path.join(GOLDEN, case, "config.json")) as f:
        config = json.load(f)
    results = run(tmp_path, config, port, env={"MSPROBE_FORCE_DEVICE_PATH": "1"} if device_path else None)
    for rank, (_, out, err) in enumerate(results):
        with open(os.path.join(GOLDEN, case, f"stdout{rank}.txt")) as f:
            assert losses(out) == unmonitored[rank]   # training unchanged
            assert_same_steps(losses(out), f.read().splitlines())
        assert "collectives restored False" in out     # still monitoring at the end
        assert_csv_as_original(the_rank_dir(os.path.join(str(tmp_path), "out"), rank),
                               os.path.join(GOLDEN, case, f"rank{rank}"), 6, zeros_tol=ZEROS_FLIP_TOL)
        rows = {row[0]: row[2:] for row in other_files(tmp_path, rank)["other_2-2.csv"][1:]}
        if case == "codeline":     # the calls from average_gradients only, after the calls
            assert list(rows) == ["all_reduce"] and len(rows["all_reduce"]) == 2
        elif case == "pre_hook":   # all_gather: pre_0, pre_1, post_0, post_1 (6 ops each)
            assert list(rows) == ["broadcast", "all_reduce", "all_gather"]
            assert [len(v) for v in rows.values()] == [24, 24, 24]
            assert rows["all_gather"][6:12] == rows["all_gather"][18:24]     # the loss, before and after
            assert rows["broadcast"][12:] == ["nan"] * 12                    # filled up as pandas does
        golden_alerts = os.path.join(GOLDEN, case, "anomaly_detected", f"rank{rank}", "anomaly.json")
        if os.path.exists(golden_alerts):
            with open(golden_alerts) as f, open(os.path.join(str(tmp_path), "out", "anomaly_detected",
                                                             f"rank{rank}", "anomaly.json")) as g:
                theirs, ours = json.load(f), json.load(g)
            assert len(theirs) > 3
            if ours != theirs:   # only alerts on their threshold may differ (test_monitor_parity.py)
                series = alert_series(tmp_path, config, port)[rank]
                threshold = config["alert"]["rules"][0]["args"]["threshold"]
                alerts = dict(theirs, **ours)
                differ = borderline_alerts(theirs, ours, lambda k: on_threshold(series, alerts[k], threshold))
                assert [(k, v) for k, v in ours.items() if k not in differ] == \
                    [(k, v) for k, v in theirs.items() if k not in differ]


def alert_series(tmp_path, config, port):
    """Each rank's statistics of the same run as TensorBoard scalars (no rounding)."""
    work = tmp_path / "series"
    run(work, dict(config, format="tensorboard"), port + 100)
    return [tensorboard_series(the_rank_dir(os.path.join(str(work), "out"), rank)) for rank in range(2)]


def test_steps_not_collected_and_restored(tmp_path, unmonitored):
    """Calls of a step that is not collected are dropped (1.2.1 added them to the next collected
    step); after collect_times the collectives are the original functions again."""
    every = run(tmp_path / "every", {"cc_distribution": {"enable": True}, "ops": ["norm", "max"],
                                     "format": "csv"}, 29684)
    some = run(tmp_path / "some", {"cc_distribution": {"enable": True}, "ops": ["norm", "max"], "format": "csv",
                                   "start_step": 1, "step_interval": 2, "collect_times": 1}, 29685)
    assert [losses(out) for _, out, _ in every] == [losses(out) for _, out, _ in some] == unmonitored
    for rank in range(2):
        assert "collectives restored True" in some[rank][1]
        all_steps = other_files(tmp_path / "every", rank)
        assert sorted(all_steps) == [f"other_{s}-{s}.csv" for s in range(4)]
        assert other_files(tmp_path / "some", rank) == {"other_1-1.csv": all_steps["other_1-1.csv"]}
        names = [row[0] for row in all_steps["other_1-1.csv"][1:]]
        assert names == ["broadcast", "all_reduce", "all_gather"]


def test_log_only(tmp_path, unmonitored):
    config = {"cc_distribution": {"enable": True, "cc_log_only": True}, "format": "csv"}
    results = run(tmp_path, config, 29686)
    assert [losses(out) for _, out, _ in results] == unmonitored    # 1.2.1 stopped training here
    err0 = results[0][2]
    assert "> Used communication ops and corresponding stack" in err0
    line = next(x for x in err0.splitlines() if x.startswith("[msprobe] INFO: {"))
    stacks = json.loads(line[len("[msprobe] INFO: "):])
    assert sorted(stacks) == ["all_gather", "all_reduce", "broadcast"]
    # Two lines call it (asynchronously, then in a loop): two stacks, the caller first.
    assert len(stacks["all_reduce"]) == 2
    for stack in stacks["all_reduce"]:
        assert stack[0].endswith("   average_gradients") and "monitor_cc_net.py[" in stack[0]
        assert stack[1].endswith("   main")
    assert "cc_log_only is done" in results[1][2]
    for _, out, _ in results:
        assert "collectives restored True" in out
    assert glob.glob(os.path.join(str(tmp_path), "out", "*", "other_*")) == []   # nothing measured


def test_bad_codeline(tmp_path, unmonitored):
    config = {"cc_distribution": {"enable": True, "cc_codeline": ["average_gradients("]}, "format": "csv"}
    results = run(tmp_path, config, 29687)
    assert [losses(out) for _, out, _ in results] == unmonitored
    for _, out, err in results:
        assert "\"cc_distribution.cc_codeline\" has a bad regular expression" in err
        assert "collectives restored True" in out


def test_batch_isend_irecv(tmp_path, unmonitored):
    """The P2POps' tensors are one tensor, summarised once per call (1.2.1: once per work)."""
    config = {"cc_distribution": {"enable": True, "cc_pre_hook": True}, "ops": ["norm", "max"], "format": "csv"}
    results = run(tmp_path, config, 29688, "--p2p")
    assert [losses(out) for _, out, _ in results] == unmonitored
    for rank in range(2):
        for name, rows in other_files(tmp_path, rank).items():
            # Its isend and irecv (P2POp.op, called by batch_isend_irecv on gloo) are part of it.
            assert [row[0] for row in rows[1:]] == ["broadcast", "all_reduce", "all_gather", "batch_isend_irecv"]
            p2p = {row[0]: row[2:] for row in rows[1:]}["batch_isend_irecv"]
            # pre_0: [r + 1, 2] and the empty receive buffer; post_0: with the other rank's tensor.
            pre = [f"{((rank + 1) ** 2 + 4) ** 0.5:.6f}", f"{2.0:.1f}"]
            assert p2p[:4] == pre + [f"{13 ** 0.5:.6f}", "2.0"], name


def test_tensorboard_as_121(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    with open(os.path.join(GOLDEN, "tensorboard", "config.json")) as f:
        config = json.load(f)
    run(tmp_path, config, 29689)
    for rank in range(2):
        acc = EventAccumulator(the_rank_dir(os.path.join(str(tmp_path), "out"), rank))
        acc.Reload()
        ours = {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in sorted(acc.Tags()["scalars"])}
        with open(os.path.join(GOLDEN, "tensorboard", f"rank{rank}", "tensorboard.json")) as f:
            theirs = json.load(f)
        assert sorted(ours) == sorted(theirs) and f"all_reduce/rank{rank}/post_0_norm" in ours
        for t in theirs:
            assert [s for s, _ in ours[t]] == [s for s, _ in theirs[t]] == [0, 1, 2, 3], t
            for (_, a), (_, b) in zip(ours[t], theirs[t]):
                assert abs(a - b) <= 64 * kernel_rtol("float32") * max(abs(a), abs(b), 1e-30), (t, a, b)


def test_without_torch_distributed(tmp_path):
    """One process, no process group: one line, the rest of the monitor works (1.2.1 raised in
    dist.get_rank())."""
    r = run_net(tmp_path, {"cc_distribution": {"enable": True}, "wg_distribution": True, "format": "csv"},
                "--steps", "2")
    assert "cc_distribution needs torch.distributed initialised" in r.stderr
    assert len(losses(r.stdout)) == 2
    assert os.path.exists(os.path.join(the_rank_dir(tmp_path / "out"), "grad_reduced_1-1.csv"))
