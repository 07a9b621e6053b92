"""Never change training: losses, gradients and updated weights are bit-identical with the probe
on (every level, both tasks) and off."""
import os

import pytest
from ms_helpers import HERE, run_python

SCRIPT = os.path.join(HERE, "fidelity_run.py")


def digest(tmp_path, level, task):
    r = run_python(SCRIPT, level, task, cwd=tmp_path)
    return [line for line in r.stdout.splitlines() if line.startswith("DIGEST")][0]


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    return digest(tmp_path_factory.mktemp("off"), "off", "statistics")


# Also through the device path forced onto CPU tensors (conftest.device_path).
@pytest.mark.usefixtures("device_path")
@pytest.mark.parametrize("level,task", [("L0", "tensor"), ("L1", "statistics"),
                                        ("mix", "tensor"), ("mix", "statistics")])
def test_bit_identical_training(tmp_path, baseline, level, task):
    assert digest(tmp_path, level, task) == baseline
    assert os.path.exists(tmp_path / "dump" / "step2" / "rank" / "dump.json")
