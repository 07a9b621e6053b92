"""DeepSpeed ZeRO 1/2 and 3 (opt_ty DeepSpeedZeroOptimizer_Stage1_or_2 / _Stage3) on two gloo
ranks, with the stand-ins of zero_net.py (DeepSpeed does not run here): the Adam moments and the
gradients of each rank's flat fp32 partition as 1.2.1 reads them (fixtures zero2, zero3 of
tests/fixtures/monitor_1.2.1), every element of a parameter on exactly one rank, losses
unchanged."""
import csv
import json
import math
import os
import shutil
import sys

import pytest
from conftest import TESTS_DIR
from tolerances import kernel_rtol

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_monitor_fixtures import ZERO_CASES, ZERO_CONFIG  # noqa: E402
from monitor_checks import assert_csv_as_original, assert_same_steps, losses, read_csv, the_rank_dir  # noqa: E402
from zero_net import run_ranks  # noqa: E402

FIXTURES = os.path.join(TESTS_DIR, "fixtures", "monitor_1.2.1")


def train(work, net_args, port, monitor=True):
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(ZERO_CONFIG, f)
    args = [*net_args, "--config", "config.json", *([] if monitor else ["--no-monitor"])]
    return [losses(out) for out in run_ranks(sys.executable, str(work), args, port,
                                             env={"PYTHONPATH": TESTS_DIR})]


def copy_without(src, dst, param):
    """The csv files of src in dst, less the rows of `param`."""
    os.makedirs(dst)
    for name in os.listdir(src):
        with open(os.path.join(dst, name), "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(r for r in read_csv(os.path.join(src, name))
                                                          if r[1] != param)
    return dst


def row(rank_dir, name, param):
    return next(r[3:] for r in read_csv(os.path.join(rank_dir, name))[1:] if r[1] == param)


@pytest.mark.parametrize("case, port", [("zero2", 29701), ("zero3", 29711)])
def test_moments_and_gradients_as_original(tmp_path, case, port, device_path):
    port += 100 if device_path == "forced" else 0   # the pieces through the device path too
    on = train(tmp_path / "on", ZERO_CASES[case], port)
    assert on == train(tmp_path / "off", ZERO_CASES[case], port + 5, monitor=False)   # bit for bit
    assert_same_steps(on[0], losses(open(os.path.join(FIXTURES, case, "stdout.txt")).read()))
    for rank in (0, 1):
        ours, golden = the_rank_dir(tmp_path / "on" / "out", rank), os.path.join(FIXTURES, case, f"rank{rank}")
        if case == "zero2" and rank == 1:
            # head.bias, the last parameter before the padding on the last rank: 1.2.1 cuts as many
            # elements off it as there is padding (one); ours is the whole parameter, as its
            # gradient before any reduction (grad_unreduced, the same on every rank here) says.
            assert row(ours, "grad_reduced_0-0.csv", "head.bias") == row(ours, "grad_unreduced_0-0.csv", "head.bias")
            assert row(golden, "grad_reduced_0-0.csv", "head.bias") != row(ours, "grad_reduced_0-0.csv", "head.bias")
            ours = copy_without(ours, str(tmp_path / "ours1"), "head.bias")
            golden = copy_without(golden, str(tmp_path / "golden1"), "head.bias")
        assert_csv_as_original(ours, golden, 6)
    # Stage 1/2: each rank has the parameters of its partition; stage 3 a piece of every one.
    rank0 = [r[1] for r in read_csv(os.path.join(the_rank_dir(tmp_path / "on" / "out", 0), "exp_avg_1-1.csv"))[1:]]
    assert rank0 == (["block.fc1.weight", "block.fc1.bias"] if case == "zero2" else
                     ["block.fc1.weight", "block.fc1.bias", "block.fc2.weight", "block.fc2.bias", "head.weight",
                      "head.bias"])


@pytest.mark.parametrize("stage, port", [("2", 29721), ("3", 29731)])
def test_every_element_is_on_one_rank(tmp_path, stage, port):
    """Two parameter groups (1.2.1 carries offsets over from one group to the next, a wrong slice
    after a padded group), parameters cut across the two partitions: the norms of a parameter's
    pieces on the ranks make its gradient's norm."""
    train(tmp_path, ["--stage", stage, "--groups", "2", "--steps", "2"], port)
    unreduced = {r[1]: float(r[5]) for r in read_csv(os.path.join(the_rank_dir(tmp_path / "out", 0),
                                                                  "grad_unreduced_1-1.csv"))[1:]}
    squares = dict.fromkeys(unreduced, 0.0)
    for rank in (0, 1):
        for r in read_csv(os.path.join(the_rank_dir(tmp_path / "out", rank), "grad_reduced_1-1.csv"))[1:]:
            squares[r[1]] += float(r[5]) ** 2
    for name, norm in unreduced.items():
        assert math.sqrt(squares[name]) == pytest.approx(norm, rel=kernel_rtol("float32"), abs=1e-5), name
    shutil.rmtree(tmp_path / "out")
