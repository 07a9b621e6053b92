"""How far a value that depends on the CPU's float kernels may move between two x86-64 machines:
the one place that says so, per dtype.

A matmul, linear layer or convolution is rounded differently on another CPU: MKL, oneDNN and
PyTorch's own kernels pick other code for AVX-512, AVX2 or SSE (another summation order, fused
multiply-adds or not), and so do random number generators and elementwise math. Everything that
follows from such a result moves with it in its last bits: losses, gradients, parameters after a
step, the statistics and checksums of those tensors, run_ut's error metrics. A golden made on one
machine therefore holds on another only within a few units in the last place (ulp) of the dtype,
relative to the magnitude of the values involved (`scale`: a sum that cancels, such as a Mean near
zero, is off by ulps of its terms, not of its result).

What is exact by nature stays compared exactly, not here: layout, names, order, shapes, dtypes,
integer and bool tensors, copies of inputs, and md5/CRC semantics checked against bytes the test
hashes itself.

scripts/run_tests.sh proves it (scripts/other_cpu.sh): the tests whose goldens depend on the
kernels run a second time under KERNEL_SETUP, which changes the low bits of a linear layer's
output (tests/scripts/kernel_bits.py checks that it does, before that run).

A decision taken on such a value (a threshold crossed, a sign, an order) turns when the value lies
within this tolerance of its boundary. Where a golden holds such decisions near their boundary,
the test accepts either outcome for those and names them in a warning, and fails on any other:
the monitor's alerts (tests/monitor/monitor_checks.py, on_threshold: a value within the tolerance,
at the scale of the tensor's elements, of baseline * (1 + threshold)) and free_benchmark's to_cpu
verdicts on bf16 (tests/free_benchmark/test_parity.py, verdict_may_flip). The other decisions
compared with goldens were measured on 2026-12-07 (AVX-512) at ten times the tolerance from their
boundary or more, and stay exact: run_ut's statuses (tests/test_run_ut_parity.py; the closest, an
fp16 matmul's max abs error 8.1e-4 against 1e-3), overflow (fp16 elements 0.7% or more from
65504; signs of relu inputs), free_benchmark's ratio verdicts on both frameworks (7.85e-5 against
2e-4 at the closest), grad_probe's sign agreement up to the step where the runs part (the smallest
|gradient| 6.6e-4 of the largest), the ur_distribution heat maps' bins (1.1e-3 from a bin edge),
the zeros shares of the monitor csv files (0.11 relative from eps), and the masks, argmax and
counts of tests/test_parity_original.py (1e-2 relative from zero, 0.05 between the two largest).
"""
import math

# Machine epsilon (one ulp at 1.0) of each floating dtype, by the name without framework prefix.
EPS = {"float64": 2.0 ** -52, "float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
# How far, relative to the magnitude of the values involved, a value may move between two CPUs,
# per dtype. float32: 64 ulps (7.6e-6). The test models' values are sums carried through a few
# training steps (linear layers of 2 to 256 inputs, a loss, an SGD step); the statistics of the
# parity dumps moved 4 ulps at most from the goldens under KERNEL_SETUP (PyTorch 3.8, MindSpore
# 1.4, at the record's scale). float64: the same, as the float64 tensors of the test models are
# float32 results cast up (their low bits are float32's). float16/bfloat16: 2 ulps of the dtype,
# as half-precision results are computed in float32 and rounded once. An error of our own (an
# element lost or wrong, a statistic of another tensor, or computed in half precision) is far
# above: tests/test_tolerances.py.
KERNEL_RTOL = {"float32": 64 * EPS["float32"], "float64": 64 * EPS["float32"],
               "float16": 2 * EPS["float16"], "bfloat16": 2 * EPS["bfloat16"]}
# Not the kernels but documented differences of computation (docs/compatibility.md), for our
# statistics against 1.2.1's: 1.2.1 reduces in float32 (on MindSpore's device too) where we
# accumulate in double, and it reduces float16/bfloat16 Mean and Norm in that dtype.
ORIGINAL_RTOL = 2e-6
HALF_REDUCTION_RTOL = 2e-3
# The setup of scripts/run_tests.sh's second run: an x86-64 CPU without AVX (SSE4.2) for PyTorch's
# own kernels, MKL and oneDNN (MindSpore's CPU matmul).
KERNEL_SETUP = {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
                "DNNL_MAX_CPU_ISA": "SSE41"}


def dtype_name(dtype):
    """"float32" for torch.float32, "torch.float32", "Float32" (MindSpore), numpy's float32, ..."""
    name = (dtype.__name__ if isinstance(dtype, type) else str(dtype)).rsplit(".", 1)[-1].lower()
    return {"float": "float32", "double": "float64", "half": "float16", "bf16": "bfloat16"}.get(name, name)


def kernel_rtol(dtype):
    """Relative tolerance for a kernel-dependent value of `dtype` (as float32 for other dtypes:
    the statistics of integer tensors are exact, their Mean and Norm are float sums)."""
    return KERNEL_RTOL.get(dtype_name(dtype), KERNEL_RTOL["float32"])


def kernel_ulps(dtype):
    """kernel_rtol in units in the last place of `dtype` (run_ut's ULP error metrics)."""
    return kernel_rtol(dtype) / EPS[dtype_name(dtype)]


def close(ours, golden, dtype, scale=0.0):
    """Whether a kernel-dependent float `ours` matches `golden` made on another CPU:
    |ours - golden| <= kernel_rtol(dtype) * max(|ours|, |golden|, scale). NaN matches NaN, an
    infinity only itself."""
    if math.isnan(golden) or math.isnan(ours):
        return math.isnan(golden) and math.isnan(ours)
    if math.isinf(golden) or math.isinf(ours):
        return ours == golden
    return abs(ours - golden) <= kernel_rtol(dtype) * max(abs(ours), abs(golden), scale)


def stat_scale(record):
    """The magnitude of a tensor record's values: max(|Max|, |Min|) where finite (0 otherwise)."""
    values = [record.get(k) for k in ("Max", "Min")]
    return max((abs(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)
                and math.isfinite(v)), default=0.0)


def same_stat(ours, golden, record, rtol=None):
    """A statistic (Max, Min, Mean, Norm, ...) of a dump record against a golden one: the same JSON
    type (4 vs 4.0 matters), None, bools and integers equal, and floats `close` for the record's
    dtype at the record's scale. `rtol`, when larger, widens the tolerance (a documented difference
    of computation: HALF_REDUCTION_RTOL)."""
    if golden is None or isinstance(golden, bool):
        return ours == golden and type(ours) is type(golden)
    if type(ours) is not type(golden):
        return False
    if isinstance(golden, int):
        return ours == golden
    dtype = record.get("dtype", "float32")
    if rtol is not None and rtol > kernel_rtol(dtype) and math.isfinite(golden) and math.isfinite(ours):
        return abs(ours - golden) <= rtol * max(abs(ours), abs(golden), stat_scale(record))
    return close(ours, golden, dtype, stat_scale(record))


def same_stat_as_original(ours, golden, record, key):
    """same_stat against 1.2.1's statistic `key` of `record`: ORIGINAL_RTOL, HALF_REDUCTION_RTOL
    for the Mean and Norm of float16/bfloat16 tensors, or the kernel tolerance where larger."""
    half = dtype_name(record.get("dtype", "")) in ("float16", "bfloat16")
    return same_stat(ours, golden, record,
                     HALF_REDUCTION_RTOL if half and key in ("Mean", "Norm") else ORIGINAL_RTOL)


def assert_close_arrays(ours, golden, dtype, what=""):
    """Two NumPy arrays of kernel-dependent values: the same shape, NaN and infinities in the same
    places, the rest within kernel_rtol(dtype) of the golden array's largest magnitude."""
    import numpy as np
    ours, golden = np.asarray(ours, dtype=np.float64), np.asarray(golden, dtype=np.float64)
    assert ours.shape == golden.shape, (what, ours.shape, golden.shape)
    assert np.array_equal(np.isnan(ours), np.isnan(golden)), what
    finite = np.isfinite(golden)
    assert np.array_equal(ours[~finite & ~np.isnan(golden)], golden[~finite & ~np.isnan(golden)]), what
    scale = float(np.abs(golden[finite]).max()) if finite.any() else 0.0
    err = float(np.abs(ours[finite] - golden[finite]).max()) if finite.any() else 0.0
    assert err <= kernel_rtol(dtype) * scale, (what, err, kernel_rtol(dtype) * scale)
