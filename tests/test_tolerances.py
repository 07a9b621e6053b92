"""The comparisons of tests/tolerances.py still bite: a value moved by more than the tolerance of
its dtype is rejected, one moved by less (as another CPU's kernels move it) is accepted, and what
is exact by nature (types, integers, NaN, infinities, None) is compared exactly."""
import glob
import math
import os

import numpy as np
import pytest
from conftest import TESTS_DIR, load_json
from dump_files import tensor_records
from tolerances import (
    EPS,
    HALF_REDUCTION_RTOL,
    KERNEL_RTOL,
    ORIGINAL_RTOL,
    assert_close_arrays,
    close,
    dtype_name,
    kernel_rtol,
    kernel_ulps,
    same_stat,
    same_stat_as_original,
    stat_scale,
)

GOLDEN = os.path.join(TESTS_DIR, "fixtures", "original_1.2.1", "L1_statistics", "step0", "rank", "dump.json")


def golden_float32_records():
    """(entry, path, record) of every float32 record with finite statistics of a golden dump."""
    out = []
    for entry, value in load_json(GOLDEN)["data"].items():
        for path, rec in tensor_records(value):
            if rec["dtype"] == "torch.float32" and all(
                    isinstance(rec.get(k), float) and math.isfinite(rec[k]) for k in ("Max", "Min", "Mean", "Norm")):
                out.append((entry, path, rec))
    return out


def test_dtype_names_of_every_framework():
    for name in ("torch.float32", "Float32", "float32", np.float32, np.dtype("float32"), "torch.float"):
        assert dtype_name(name) == "float32", name
    assert dtype_name("BFloat16") == dtype_name("torch.bfloat16") == "bfloat16"
    assert dtype_name("torch.float16") == dtype_name(np.float16) == "float16"
    assert kernel_rtol("torch.float32") == KERNEL_RTOL["float32"] == 64 * 2.0 ** -23
    assert kernel_ulps("torch.float32") == 64 and kernel_ulps("Float16") == kernel_ulps("bfloat16") == 2
    assert kernel_rtol("torch.int64") == kernel_rtol("float32")  # statistics of integers: float sums
    assert kernel_rtol("bfloat16") > kernel_rtol("float16") > kernel_rtol("float32") == kernel_rtol("float64")


def test_another_cpus_loss_is_accepted_a_wrong_one_is_not():
    # The loss of tests/overflow/overflow_model.py (L1_none) on two CPUs: one float32 ulp apart.
    assert close(1.5577582120895386, 1.557758092880249, "float32")
    assert not close(1.5577582120895386 * (1 + 2 * kernel_rtol("float32")), 1.557758092880249, "float32")
    assert not close(1.56, 1.557758092880249, "float32")
    assert close(math.nan, math.nan, "float32") and not close(1.0, math.nan, "float32")
    assert not close(math.nan, 1.0, "float32")
    assert close(math.inf, math.inf, "float16") and not close(math.inf, -math.inf, "float16")
    assert not close(65504.0, math.inf, "float16")


@pytest.mark.parametrize("key", ["Max", "Min", "Mean", "Norm"])
def test_perturbed_statistic_of_a_golden_record_is_rejected(key):
    """Every float32 record of a golden dump: its statistic moved by twice the tolerance is
    rejected, moved by half of it accepted (the tolerance is relative to the record's scale)."""
    records = golden_float32_records()
    assert len(records) > 20
    for entry, path, rec in records:
        v = rec[key]
        bound = max(kernel_rtol(rec["dtype"]), ORIGINAL_RTOL) * max(abs(v), stat_scale(rec))
        assert same_stat_as_original(v, v, rec, key)
        if bound == 0:  # all zeros (a bias at its start): nothing else is accepted
            assert not same_stat_as_original(1e-30, v, rec, key), (entry, path, key)
            continue
        assert same_stat_as_original(v + 0.5 * bound, v, rec, key), (entry, path, key)
        assert not same_stat_as_original(v + 2 * bound, v, rec, key), (entry, path, key)
        assert not same_stat_as_original(v - 2 * bound, v, rec, key), (entry, path, key)


def stats(a, dtype="torch.float32"):
    a = np.asarray(a, dtype=np.float64)
    return {"dtype": dtype, "Max": float(a.max()), "Min": float(a.min()), "Mean": float(a.mean()),
            "Norm": float(np.sqrt((a * a).sum()))}


def test_errors_of_our_own_are_rejected():
    """Mistakes a dump could make are far past the tolerance: an element lost or zeroed, the
    statistics of the neighbouring tensor, Mean and Norm summed in float16."""
    rng = np.random.default_rng(1)
    t = rng.standard_normal(4096).astype(np.float32)
    golden = stats(t)

    def rejected(ours):
        return not all(same_stat_as_original(ours[k], golden[k], golden, k) for k in ("Max", "Min", "Mean", "Norm"))
    assert not rejected(stats(t))
    assert not rejected(stats(t * np.float32(1 + 4 * 2.0 ** -23)))  # 4 float32 ulps: another CPU
    assert rejected(stats(t[1:]))
    zeroed = t.copy()
    zeroed[100] = 0
    assert rejected(stats(zeroed))
    assert rejected(stats(rng.standard_normal(4096).astype(np.float32)))
    half = t.astype(np.float16)
    assert rejected({**golden, "Mean": float(half.mean(dtype=np.float16)),
                     "Norm": float(np.sqrt((half * half).sum(dtype=np.float16)))})


def test_exact_by_nature_stays_exact():
    rec = {"dtype": "torch.int64", "Max": 4, "Min": 0, "Mean": 2.0, "Norm": 5.0}
    assert same_stat(4, 4, rec) and not same_stat(5, 4, rec)
    assert not same_stat(4.0, 4, rec) and not same_stat(4, 4.0, rec)  # 4 vs 4.0: the JSON differs
    assert same_stat(None, None, rec) and not same_stat(0.0, None, rec)
    assert same_stat(True, True, rec) and not same_stat(1, True, rec) and not same_stat(False, True, rec)
    assert same_stat(math.nan, math.nan, rec) and not same_stat(2.0, math.nan, rec)


def test_half_precision_reductions_of_the_original():
    """1.2.1's float16 Mean/Norm (reduced in float16) get HALF_REDUCTION_RTOL, its Max/Min not."""
    rec = {"dtype": "torch.float16", "Max": 10.0, "Min": -10.0, "Mean": 1.0, "Norm": 40.0}
    moved = 1.0 + 0.5 * HALF_REDUCTION_RTOL * 10.0  # within the reduction difference at scale 10
    assert same_stat_as_original(moved, 1.0, rec, "Mean")
    assert not same_stat_as_original(1.0 + 2 * HALF_REDUCTION_RTOL * 10.0, 1.0, rec, "Mean")
    assert not same_stat_as_original(10.0 + 10.0 * 4 * EPS["float16"], 10.0, rec, "Max")
    assert same_stat_as_original(10.0 + 10.0 * EPS["float16"], 10.0, rec, "Max")  # one float16 ulp


def test_arrays_within_and_past_the_tolerance():
    rng = np.random.default_rng(0)
    golden = rng.standard_normal(100).astype(np.float32)
    scale = float(np.abs(golden).max())
    assert_close_arrays(golden + np.float32(0.4 * kernel_rtol("float32") * scale), golden, np.float32)
    wrong = golden.copy()
    wrong[17] += 2 * kernel_rtol("float32") * scale
    with pytest.raises(AssertionError):
        assert_close_arrays(wrong, golden, np.float32)
    with pytest.raises(AssertionError):
        assert_close_arrays(golden[:99], golden, np.float32)
    specials = np.array([1.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    assert_close_arrays(specials, specials, np.float32)
    with pytest.raises(AssertionError):
        assert_close_arrays(np.array([1.0, np.nan, np.inf, np.inf], dtype=np.float32), specials, np.float32)
    with pytest.raises(AssertionError):
        assert_close_arrays(np.array([1.0, 0.0, np.inf, -np.inf], dtype=np.float32), specials, np.float32)


def test_every_float_dtype_of_the_goldens_is_known():
    """Each float dtype that 1.2.1's golden dumps name (PyTorch's and MindSpore's spellings) has
    its own tolerance: none falls back to float32's."""
    dumps = glob.glob(os.path.join(TESTS_DIR, "fixtures", "original_1.2.1*", "*", "step0", "rank*", "dump.json"))
    assert len(dumps) > 10
    names = {rec["dtype"] for path in dumps for value in load_json(path)["data"].values()
             for _, rec in tensor_records(value) if "dtype" in rec}
    floats = {n for n in names if "float" in n.lower()}
    assert {"torch.float32", "Float32", "torch.float16", "Float16"} <= floats, names
    assert all(dtype_name(n) in EPS for n in floats), floats
