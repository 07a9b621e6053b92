"""Parity with the original msprobe 1.2.1: the same training script (tests/parity/parity_model.py)
dumped with our package must give the same entries, statistics, checksums, construct trees, stack
keys and tensor files as the golden dumps in tests/fixtures/original_1.2.1 (see its README)."""
import json
import math
import os

import pytest
import torch

from conftest import TESTS_DIR, run_python

FIXTURES = os.path.join(TESTS_DIR, "fixtures", "original_1.2.1")
CONFIGS = os.path.join(TESTS_DIR, "parity", "configs")
CONFIG_NAMES = sorted(f[:-5] for f in os.listdir(CONFIGS) if f.endswith(".json"))


def load(path):
    with open(path) as f:
        return json.load(f)


def tensors(node, path=""):
    if isinstance(node, dict):
        if "dtype" in node and "shape" in node:
            yield path, node
        else:
            for k, v in node.items():
                yield from tensors(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from tensors(v, f"{path}.{i}")


def same_stat(ours, orig, dtype):
    if orig is None or isinstance(orig, bool):
        return ours == orig and type(ours) is type(orig)
    if isinstance(orig, float) and math.isnan(orig):
        return isinstance(ours, float) and math.isnan(ours)
    if type(ours) is not type(orig):           # 4 vs 4.0 matters: same JSON as the original
        return False
    # We accumulate in double; the original in the tensor's dtype (bf16/fp16/fp32) or fp32 for
    # fp64 (a documented fix), so allow the rounding of that dtype.
    rtol = {"torch.float64": 1e-6}.get(dtype, 1e-6)
    return math.isclose(ours, orig, rel_tol=rtol, abs_tol=1e-7)


def rank_dirs(root):
    return sorted(os.path.relpath(os.path.join(dp), root) for dp, dn, fn in os.walk(root)
                  if "dump.json" in fn)


@pytest.fixture(scope="module", params=CONFIG_NAMES)
def dumped(request, tmp_path_factory):
    name = request.param
    work = tmp_path_factory.mktemp(name)
    r = run_python(os.path.join(TESTS_DIR, "parity", "parity_model.py"), "--config",
                   os.path.join(CONFIGS, f"{name}.json"), "--steps", "2", cwd=work)
    return name, work / "dump", r.stdout


def test_same_losses_as_original(dumped):
    _, _, stdout = dumped
    assert "step 0 loss 1.678541" in stdout and "step 1 loss 1.647594" in stdout


def test_same_layout_entries_and_statistics(dumped):
    name, ours_root, _ = dumped
    orig_root = os.path.join(FIXTURES, name)
    assert rank_dirs(str(ours_root)) == rank_dirs(orig_root)
    for rel in rank_dirs(orig_root):
        ours = load(os.path.join(ours_root, rel, "dump.json"))
        orig = load(os.path.join(orig_root, rel, "dump.json"))
        assert [ours[k] for k in ("task", "level", "framework", "dump_data_dir")] == \
               [orig[k] for k in ("task", "level", "framework", "dump_data_dir")]
        # The same entries in the same order: 1.2.1's compare matches rows by their order
        # (parameters_grad is put where 1.2.1 reserves it when the step's files are closed).
        assert list(ours["data"]) == list(orig["data"])
        for entry, value in orig["data"].items():
            mine = ours["data"][entry]
            assert list(mine) == list(value), entry
            ot, mt = dict(tensors(value)), dict(tensors(mine))
            assert set(ot) == set(mt), entry
            for path, t in ot.items():
                u = mt[path]
                assert list(u) == list(t), (entry, path)           # same keys, same order
                for key in ("dtype", "shape", "requires_grad", "md5", "data_name"):
                    assert u.get(key) == t.get(key), (entry, path, key)
                for key in ("Max", "Min", "Mean", "Norm"):
                    assert same_stat(u[key], t[key], t["dtype"]), (entry, path, key, u[key], t[key])
        # construct.json is equal as a mapping; stack.json has the same keys.
        assert load(os.path.join(ours_root, rel, "construct.json")) == \
            load(os.path.join(orig_root, rel, "construct.json"))
        assert set(load(os.path.join(ours_root, rel, "stack.json"))) == \
            set(load(os.path.join(orig_root, rel, "stack.json")))


def test_same_tensor_files(dumped):
    name, ours_root, _ = dumped
    orig_root = os.path.join(FIXTURES, name)
    for rel in rank_dirs(orig_root):
        listing = os.path.join(orig_root, rel, "tensor_files.txt")
        data_dir = os.path.join(ours_root, rel, "dump_tensor_data")
        if not os.path.exists(listing):
            assert not os.path.exists(data_dir)
            continue
        expected = {line.strip() for line in open(listing) if line.strip()}
        assert set(os.listdir(data_dir)) == expected
        kept = os.path.join(orig_root, rel, "dump_tensor_data")
        for fname in os.listdir(kept) if os.path.isdir(kept) else []:
            orig = torch.load(os.path.join(kept, fname), weights_only=True)
            mine = torch.load(os.path.join(data_dir, fname), weights_only=True)
            assert mine.dtype == orig.dtype and torch.equal(mine, orig), fname
