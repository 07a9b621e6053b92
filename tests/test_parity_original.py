"""Parity with the original msprobe 1.2.1: the same training script (tests/parity/parity_model.py)
dumped with our package must give the same entries, statistics, checksums, construct trees, stack
keys and tensor files as the golden dumps in tests/fixtures/original_1.2.1 (see its README).

The goldens were made on another CPU: values that follow from float kernels (losses, statistics,
saved tensors) are compared within tests/tolerances.py, and a checksum of such a tensor that
differs from the golden one must be the CRC32 of the bytes of our own tensor."""
import json
import math
import os
import zlib

import pytest
import torch
from conftest import FORCE_DEVICE_ENV, TESTS_DIR, run_python
from dump_files import load_json, rank_dirs, tensor_records
from original_dumps import (
    assert_same_construct_and_stack,
    matching_tensor_records,
    tensor_file_listings,
    without_hook_view_as,
)
from tolerances import assert_close_arrays, close, same_stat_as_original

FIXTURES = os.path.join(TESTS_DIR, "fixtures", "original_1.2.1")
CONFIGS = os.path.join(TESTS_DIR, "parity", "configs")
CONFIG_NAMES = sorted(f[:-5] for f in os.listdir(CONFIGS) if f.endswith(".json"))


_DUMPS = {}  # (config, device path) -> dump root, for the comparison of the two paths


def run_parity_model(name, path, tmp_path_factory, config=None):
    """Dumps parity_model.py with configs/NAME.json (or the `config` mapping) on a device path."""
    work = tmp_path_factory.mktemp(f"{name}_{path}")
    env = {FORCE_DEVICE_ENV: "1" if path == "forced" else ""}
    config_file = os.path.join(CONFIGS, f"{name}.json")
    if config is not None:
        config_file = work / "config.json"
        config_file.write_text(json.dumps(config))
    r = run_python(os.path.join(TESTS_DIR, "parity", "parity_model.py"), "--config", str(config_file),
                   "--steps", "2", cwd=work, env=env)
    if config is None:
        _DUMPS[(name, path)] = work / "dump"
    return work / "dump", r.stdout


def crc32_of_own_tensors(name, path, tmp_path_factory):
    """{(step/rank folder, entry, record path): CRC32 as dump.json writes it} of the tensors a
    tensor dump of the same script, level and filters holds on this machine (same kernels, same
    bytes)."""
    with open(os.path.join(CONFIGS, f"{name}.json")) as f:
        config = json.load(f)
    config["tensor"] = {k: v for k, v in config.pop(config["task"]).items() if k != "summary_mode"}
    config["task"] = "tensor"
    root, _ = run_parity_model(f"{name}_as_tensor", path, tmp_path_factory, config)
    crcs = {}
    for rel in rank_dirs(str(root)):
        data = load_json(os.path.join(root, rel, "dump.json"))["data"]
        for entry, value in data.items():
            for rpath, rec in tensor_records(value):
                t = torch.load(os.path.join(root, rel, "dump_tensor_data", rec["data_name"]), weights_only=True)
                t = t.detach()
                t = t.float() if t.dtype == torch.bfloat16 else t  # md5 of bf16: over float32 bytes
                crcs[(rel, entry, rpath)] = f"{zlib.crc32(t.contiguous().numpy().tobytes()):08x}"
    return crcs


# Each configuration is dumped on the host path and through the device path forced onto CPU
# tensors (conftest.device_path); both must match the original.
@pytest.fixture(scope="module", params=CONFIG_NAMES)
def dumped(request, tmp_path_factory, device_path):
    name = request.param
    root, stdout = run_parity_model(name, device_path, tmp_path_factory)
    return name, root, stdout


def test_same_losses_as_original(dumped):
    """1.2.1's losses (README of the fixtures), printed to 6 decimals: within the float32 kernel
    tolerance, which is wider than the rounding of the print."""
    _, _, stdout = dumped
    losses = [float(ln.split()[3]) for ln in stdout.splitlines() if ln.startswith("step ")]
    assert len(losses) == 2
    assert close(losses[0], 1.678541, "float32") and close(losses[1], 1.647594, "float32"), losses


def test_same_layout_entries_and_statistics(dumped, tmp_path_factory, device_path):
    name, ours_root, _ = dumped
    orig_root = os.path.join(FIXTURES, name)
    assert rank_dirs(str(ours_root)) == rank_dirs(orig_root)
    other_md5 = []  # (folder, entry, path, record) whose md5 is not 1.2.1's
    for rel in rank_dirs(orig_root):
        ours = load_json(os.path.join(ours_root, rel, "dump.json"))
        orig = load_json(os.path.join(orig_root, rel, "dump.json"))
        assert [ours[k] for k in ("task", "level", "framework", "dump_data_dir")] == \
               [orig[k] for k in ("task", "level", "framework", "dump_data_dir")]
        # The same entries in the same order: 1.2.1's compare matches rows by their order
        # (parameters_grad is put where 1.2.1 reserves it when the step's files are closed).
        orig_data = without_hook_view_as(orig["data"])
        assert list(ours["data"]) == list(orig_data)
        for entry, path, u, t in matching_tensor_records(ours["data"], orig_data):
            for key in ("dtype", "shape", "requires_grad", "data_name"):
                assert u.get(key) == t.get(key), (entry, path, key)
            assert ("md5" in u) == ("md5" in t), (entry, path)
            if u.get("md5") != t.get("md5"):
                other_md5.append((rel, entry, path, u))
            for key in ("Max", "Min", "Mean", "Norm"):
                assert same_stat_as_original(u[key], t[key], t, key), (entry, path, key, u[key], t[key])
        # construct.json is equal as a mapping; stack.json has the same keys.
        assert_same_construct_and_stack(os.path.join(ours_root, rel), os.path.join(orig_root, rel),
                                        original=without_hook_view_as)
    # A checksum that is not 1.2.1's: a float tensor that this CPU's kernels computed in other
    # low bits (its statistics matched above). It must be the CRC32 of our own tensor's bytes.
    if other_md5:
        assert all(u["dtype"] in ("torch.float32", "torch.float64", "torch.float16", "torch.bfloat16")
                   for _, _, _, u in other_md5), other_md5
        crcs = crc32_of_own_tensors(name, device_path, tmp_path_factory)
        for rel, entry, path, u in other_md5:
            assert u["md5"] == crcs[(rel, entry, path)], (rel, entry, path)


def test_same_tensor_files(dumped):
    name, ours_root, _ = dumped
    orig_root = os.path.join(FIXTURES, name)
    for rel, data_dir, expected in tensor_file_listings(ours_root, orig_root):
        assert set(os.listdir(data_dir)) == set(without_hook_view_as(expected))
        kept = os.path.join(orig_root, rel, "dump_tensor_data")
        for fname in os.listdir(kept) if os.path.isdir(kept) else []:
            orig = torch.load(os.path.join(kept, fname), weights_only=True)
            mine = torch.load(os.path.join(data_dir, fname), weights_only=True)
            mine, orig = mine.detach(), orig.detach()
            assert mine.dtype == orig.dtype and mine.shape == orig.shape, fname
            if orig.is_floating_point():  # values from float kernels: within their tolerance
                assert_close_arrays(mine.float().numpy(), orig.float().numpy(), orig.dtype, fname)
            else:
                assert torch.equal(mine, orig), fname


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
