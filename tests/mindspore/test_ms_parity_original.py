"""Parity with the ORIGINAL msprobe 1.2.1 on MindSpore: parity_net.py dumped with our package must
give the entries, tensor records, checksums, construct trees, stack keys and tensor files of the
golden dumps in tests/fixtures/original_1.2.1_mindspore (see its README for how they were made).

One deliberate difference is allowed: a Primitive's backward `output` lists the gradient of each
tensor argument in argument order (null when none arrives), where 1.2.1 lists only the gradients
that arrived, in arrival order. Every gradient 1.2.1 lists must be in ours.

The goldens were made on another CPU: values that follow from float kernels (losses, statistics,
saved tensors) are compared within tests/tolerances.py, and a checksum of such a tensor that
differs from the golden one must be the CRC32 of the bytes of our own tensor."""
import json
import os
import zlib

import numpy as np
import pytest
from dump_files import rank_dirs
from ms_helpers import HERE, load_json, run_python, tensors
from original_dumps import assert_same_construct_and_stack, tensor_file_listings
from tolerances import EPS, assert_close_arrays, close, dtype_name, same_stat_as_original

FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "original_1.2.1_mindspore")
CONFIGS = os.path.join(HERE, "configs")
CONFIG_NAMES = sorted(f[:-5] for f in os.listdir(CONFIGS) if f.endswith(".json"))


def same_tensor(u, t, own_md5):
    """Our record `u` against 1.2.1's `t`; own_md5() is the CRC32 of our own tensor's bytes,
    asked for only where the md5 differs from 1.2.1's (then the tensor must be a float one)."""
    if list(u) != list(t):
        return False
    for key in ("dtype", "shape", "data_name"):
        if u.get(key) != t.get(key):
            return False
    if u.get("md5") != t.get("md5") and not (dtype_name(t["dtype"]) in EPS and u.get("md5") == own_md5()):
        return False
    return all(same_stat_as_original(u[k], t[k], t, k) for k in ("Max", "Min", "Mean", "Norm"))


def run_net(name, config_file, work):
    return run_python(os.path.join(HERE, "parity_net.py"), "--config", str(config_file), "--steps", "2", cwd=work)


def own_crc32s(name, tmp_path_factory):
    """own_crc32s() -> {(step/rank folder, entry, record path): CRC32 as dump.json writes it} of
    the tensors that a tensor dump of the same net, level and filters holds on this machine (the
    same kernels, the same bytes); dumped on first use."""
    done = {}

    def get():
        if not done:
            with open(os.path.join(CONFIGS, f"{name}.json")) as f:
                config = json.load(f)
            config["tensor"] = {k: v for k, v in config.pop(config["task"]).items() if k != "summary_mode"}
            config["task"] = "tensor"
            work = tmp_path_factory.mktemp(f"{name}_as_tensor")
            (work / "config.json").write_text(json.dumps(config))
            run_net(name, work / "config.json", work)
            root = work / "dump"
            for rel in rank_dirs(str(root)):
                for entry, value in load_json(os.path.join(root, rel, "dump.json"))["data"].items():
                    for path, rec in tensors(value):
                        a = np.load(os.path.join(root, rel, "dump_tensor_data", rec["data_name"]),
                                    allow_pickle=False)
                        done[(rel, entry, path)] = f"{zlib.crc32(np.ascontiguousarray(a).tobytes()):08x}"
        return done
    return get


def is_primitive_backward_output(entry, path):
    return entry.startswith("Primitive.") and entry.endswith(".backward") and \
        path.startswith(".output")


# Each configuration is dumped on the host path and through the device path forced onto CPU
# tensors (conftest.device_path); both must match the original.
@pytest.fixture(scope="module", params=CONFIG_NAMES)
def dumped(request, tmp_path_factory, device_path):
    name = request.param
    work = tmp_path_factory.mktemp(f"{name}_{device_path}")
    r = run_net(name, os.path.join(CONFIGS, f"{name}.json"), work)
    return name, work / "dump", r.stdout


def test_same_losses_as_original(dumped):
    """1.2.1's losses, printed to 6 decimals: within the float32 kernel tolerance, which is wider
    than the rounding of the print."""
    name, _, stdout = dumped
    with open(os.path.join(FIXTURES, name, "losses.txt")) as f:
        expected = [line.split() for line in f.read().split("\n") if line]
    ours = [line.split() for line in stdout.splitlines() if line.startswith("step ")]
    assert [line[:3] for line in ours] == [line[:3] for line in expected]
    assert all(close(float(a[3]), float(b[3]), "float32") for a, b in zip(ours, expected)), (ours, expected)


def test_same_layout_entries_and_records(dumped, tmp_path_factory):
    name, ours_root, _ = dumped
    crcs = own_crc32s(name, tmp_path_factory)
    orig_root = os.path.join(FIXTURES, name)
    assert rank_dirs(str(ours_root)) == rank_dirs(orig_root)
    for rel in rank_dirs(orig_root):
        ours = load_json(os.path.join(ours_root, rel, "dump.json"))
        orig = load_json(os.path.join(orig_root, rel, "dump.json"))
        for k in ("task", "level", "framework"):
            assert ours[k] == orig[k], k
        assert (ours["dump_data_dir"] is None) == (orig["dump_data_dir"] is None)
        # The same entries in the same order: 1.2.1's compare matches rows by their order
        # (parameters_grad is put where 1.2.1 reserves it when the step's files are closed).
        assert list(ours["data"]) == list(orig["data"])
        for entry, value in orig["data"].items():
            mine = ours["data"][entry]
            assert list(mine) == list(value), entry
            ot, mt = dict(tensors(value)), dict(tensors(mine))
            for path, t in ot.items():
                if is_primitive_backward_output(entry, path):
                    assert any(same_tensor({**u, "data_name": t.get("data_name")} if "data_name" in t else u, t,
                                           lambda p=p: crcs()[(rel, entry, p)])
                               for p, u in mt.items() if p.startswith(".output")), (entry, path)
                    continue
                assert path in mt, (entry, path)
                assert same_tensor(mt[path], t, lambda: crcs()[(rel, entry, path)]), (entry, path, mt[path], t)
            extra = set(mt) - set(ot)
            assert all(is_primitive_backward_output(entry, p) for p in extra), (entry, extra)
        assert_same_construct_and_stack(os.path.join(ours_root, rel), os.path.join(orig_root, rel))


def test_same_tensor_files(dumped):
    name, ours_root, _ = dumped
    orig_root = os.path.join(FIXTURES, name)
    for rel, data_dir, expected in tensor_file_listings(ours_root, orig_root):
        mine = set(os.listdir(data_dir))
        primitive_bw_out = lambda n: n.startswith("Primitive.") and ".backward.output." in n  # noqa
        assert {n for n in expected if not primitive_bw_out(n)} == \
            {n for n in mine if not primitive_bw_out(n)}
        for fname in expected:
            if primitive_bw_out(fname):
                continue
            orig = np.load(os.path.join(orig_root, rel, "dump_tensor_data", fname),
                           allow_pickle=False)
            ours = np.load(os.path.join(data_dir, fname), allow_pickle=False)
            assert ours.dtype == orig.dtype and ours.shape == orig.shape, fname
            if np.issubdtype(orig.dtype, np.floating):  # values from float kernels: within their tolerance
                assert_close_arrays(ours, orig, orig.dtype, fname)
            else:
                assert np.array_equal(ours, orig), fname
