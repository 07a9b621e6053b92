"""Parity with the original msprobe 1.2.1: the same training script (tests/parity/parity_model.py)
dumped with our package must give the same entries, statistics, checksums, construct trees, stack
keys and tensor files as the golden dumps in tests/fixtures/original_1.2.1 (see its README)."""
import math
import os

import pytest
import torch
from conftest import FORCE_DEVICE_ENV, TESTS_DIR, run_python
from dump_files import load_json, rank_dirs, tensor_records
from original_dumps import (
    assert_same_construct_and_stack,
    matching_tensor_records,
    same_stat,
    tensor_file_listings,
)

FIXTURES = os.path.join(TESTS_DIR, "fixtures", "original_1.2.1")
CONFIGS = os.path.join(TESTS_DIR, "parity", "configs")
CONFIG_NAMES = sorted(f[:-5] for f in os.listdir(CONFIGS) if f.endswith(".json"))


_DUMPS = {}  # (config, device path) -> dump root, for the comparison of the two paths


def run_parity_model(name, path, tmp_path_factory):
    work = tmp_path_factory.mktemp(f"{name}_{path}")
    env = {FORCE_DEVICE_ENV: "1" if path == "forced" else ""}
    r = run_python(os.path.join(TESTS_DIR, "parity", "parity_model.py"), "--config",
                   os.path.join(CONFIGS, f"{name}.json"), "--steps", "2", cwd=work, env=env)
    _DUMPS[(name, path)] = work / "dump"
    return work / "dump", r.stdout


# Each configuration is dumped on the host path and through the device path forced onto CPU
# tensors (conftest.device_path); both must match the original.
@pytest.fixture(scope="module", params=CONFIG_NAMES)
def dumped(request, tmp_path_factory, device_path):
    name = request.param
    root, stdout = run_parity_model(name, device_path, tmp_path_factory)
    return name, root, stdout


def test_same_losses_as_original(dumped):
    _, _, stdout = dumped
    assert "step 0 loss 1.678541" in stdout and "step 1 loss 1.647594" in stdout


def test_same_layout_entries_and_statistics(dumped):
    name, ours_root, _ = dumped
    orig_root = os.path.join(FIXTURES, name)
    assert rank_dirs(str(ours_root)) == rank_dirs(orig_root)
    for rel in rank_dirs(orig_root):
        ours = load_json(os.path.join(ours_root, rel, "dump.json"))
        orig = load_json(os.path.join(orig_root, rel, "dump.json"))
        assert [ours[k] for k in ("task", "level", "framework", "dump_data_dir")] == \
               [orig[k] for k in ("task", "level", "framework", "dump_data_dir")]
        # The same entries in the same order: 1.2.1's compare matches rows by their order
        # (parameters_grad is put where 1.2.1 reserves it when the step's files are closed).
        assert list(ours["data"]) == list(orig["data"])
        for entry, path, u, t in matching_tensor_records(ours["data"], orig["data"]):
            for key in ("dtype", "shape", "requires_grad", "md5", "data_name"):
                assert u.get(key) == t.get(key), (entry, path, key)
            for key in ("Max", "Min", "Mean", "Norm"):
                assert same_stat(u[key], t[key]), (entry, path, key, u[key], t[key])
        # construct.json is equal as a mapping; stack.json has the same keys.
        assert_same_construct_and_stack(os.path.join(ours_root, rel), os.path.join(orig_root, rel))


def test_same_tensor_files(dumped):
    name, ours_root, _ = dumped
    orig_root = os.path.join(FIXTURES, name)
    for rel, data_dir, expected in tensor_file_listings(ours_root, orig_root):
        assert set(os.listdir(data_dir)) == set(expected)
        kept = os.path.join(orig_root, rel, "dump_tensor_data")
        for fname in os.listdir(kept) if os.path.isdir(kept) else []:
            orig = torch.load(os.path.join(kept, fname), weights_only=True)
            mine = torch.load(os.path.join(data_dir, fname), weights_only=True)
            assert mine.dtype == orig.dtype and torch.equal(mine, orig), fname


def test_device_path_matches_host_path(dumped, device_path, tmp_path_factory):
    """The forced device path against the host path, record by record: everything equal except
    Mean and Norm, which torch sums in float32 and we sum in double (float32 rounding)."""
    name, root, _ = dumped
    if device_path != "forced":
        pytest.skip("compared once, from the forced run")
    host = _DUMPS.get((name, "host")) or run_parity_model(name, "host", tmp_path_factory)[0]
    assert rank_dirs(str(root)) == rank_dirs(str(host))
    for rel in rank_dirs(str(host)):
        ours = load_json(os.path.join(root, rel, "dump.json"))
        ref = load_json(os.path.join(host, rel, "dump.json"))
        assert list(ours["data"]) == list(ref["data"])
        for entry, value in ref["data"].items():
            mt, rt = dict(tensor_records(ours["data"][entry])), dict(tensor_records(value))
            assert list(mt) == list(rt), entry
            for path, t in rt.items():
                u = mt[path]
                assert list(u) == list(t), (entry, path)
                # A float32 sum's error scales with the magnitudes summed, not with the result.
                scale = max((abs(t[k]) for k in ("Max", "Min") if isinstance(t.get(k), float)
                             and math.isfinite(t[k])), default=0.0)
                for key, v in t.items():
                    if key in ("Mean", "Norm") and isinstance(v, float) and not math.isnan(v):
                        assert math.isclose(u[key], v, rel_tol=2e-6, abs_tol=2e-6 * scale), \
                            (entry, path, key, u[key], v)
                    elif isinstance(v, float) and math.isnan(v):
                        assert math.isnan(u[key]), (entry, path, key)
                    else:
                        assert u[key] == v and type(u[key]) is type(v), (entry, path, key)
        data_dir = os.path.join(host, rel, "dump_tensor_data")
        if os.path.isdir(data_dir):
            files = sorted(os.listdir(data_dir))
            assert sorted(os.listdir(os.path.join(root, rel, "dump_tensor_data"))) == files
            for fname in files:
                a = torch.load(os.path.join(root, rel, "dump_tensor_data", fname),
                               weights_only=True)
                b = torch.load(os.path.join(data_dir, fname), weights_only=True)
                assert a.dtype == b.dtype and torch.equal(a, b), fname
