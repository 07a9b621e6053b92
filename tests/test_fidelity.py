"""The probe never changes training: loss and every gradient are bit-identical with it on."""
import pytest
import torch
from conftest import TESTS_DIR, run_python

SCRIPT = f"{TESTS_DIR}/scripts/fidelity_run.py"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    d = tmp_path_factory.mktemp("off")
    run_python(SCRIPT, str(d / "off.pt"), "off", cwd=d)
    return torch.load(d / "off.pt", weights_only=True)


# Also through the device path forced onto CPU tensors (conftest.device_path).
@pytest.mark.usefixtures("device_path")
@pytest.mark.parametrize("level,task", [("L1", "statistics"), ("L0", "statistics"),
                                        ("mix", "statistics"), ("mix", "tensor"), ("L1", "md5")])
def test_loss_and_gradients_bit_identical(tmp_path, baseline, level, task):
    run_python(SCRIPT, str(tmp_path / "on.pt"), level, task, cwd=tmp_path)
    on = torch.load(tmp_path / "on.pt", weights_only=True)
    assert set(on) == set(baseline)
    for k, ref in baseline.items():
        assert torch.equal(on[k], ref), f"{k} differs with the probe at {level}/{task}"
    assert (tmp_path / "dump" / "step1" / "rank" / "dump.json").exists()
