"""Accuracy-metric throughput: msprobe._core (C++, one pass) against numpy doing the same formulas
(the way msprobe 1.2.1 computes them: one vectorised numpy expression per quantity).

    PYTHONPATH=... python bench/metrics_bench.py [--n 67108864] [--repeat 3]

Each case is one run_ut output check of an fp32 output pair: the cosine / max-abs / 双百 / 双千 /
双万 chain plus one standard's metrics. Prints a Markdown table (time per pair, elements/s,
ratio) and checks that both sides agree.
"""
import argparse
import math
import time

import numpy as np

from msprobe import _core

EPS32 = np.finfo(np.float32).eps


# ---- numpy reference: same formulas, numpy-vectorised (spec §2.1, §2.4) -------------------------

def np_common(b, d):
    """Cosine, max abs error, 双百/双千/双万 (rel error r = |d-b| / (|b| + eps))."""
    dn = d.reshape(-1).astype(np.float64)
    bn = b.reshape(-1).astype(np.float64)
    dn /= np.max(np.abs(d))
    bn /= np.max(np.abs(b))
    cos = np.clip(np.dot(dn, bn) / (np.linalg.norm(dn) * np.linalg.norm(bn)), -1, 1)
    abs_err = np.abs(d - b)
    abs_bench_eps = np.abs(b) + np.finfo(b.dtype).eps
    rel = abs_err / abs_bench_eps
    n = rel.size
    ratios = [np.sum(rel < t) / n for t in (0.01, 0.001, 0.0001)]
    return {"cos": cos, "max_abs": abs_err.max(), "r": ratios}, abs_err, abs_bench_eps, rel


def np_benchmark(b, d, sv=2.0 ** -20, atol=2.0 ** -30):
    c, abs_err, _, rel = np_common(b, d)
    finite = np.isfinite(d) & np.isfinite(b.astype(d.dtype))
    inf_nan = ~finite
    small = (np.abs(b) <= sv) & finite
    small_cnt = np.sum(small)
    c["small_value_err_ratio"] = 0 if small_cnt == 0 else np.sum(small & (abs_err > atol)) / small_cnt
    mask = inf_nan | small
    mse = np.mean(np.square(np.where(mask, 0, abs_err)))
    c["rmse"] = math.sqrt(mse * (abs_err.size / (abs_err.size - np.sum(mask) + 1e-4) + 1e-4))
    rel_m = np.where(mask, -1, rel)
    c["max_rel_err"] = np.max(rel_m) if np.max(rel_m) >= 0 else 0
    pos = rel_m[rel_m >= 0]
    c["mean_rel_err"] = np.mean(pos) if pos.size else 0
    delta = d - b.astype(d.dtype)
    c["eb"] = abs(int(np.sum(delta > 0)) - int(np.sum(delta < 0))) / b.size
    return c


def np_absolute(b, d, sv=2.0 ** -20, atol=2.0 ** -30, rtol=2.0 ** -20):
    c, abs_err, abe, rel = np_common(b, d)
    finite = np.isfinite(d) & np.isfinite(b.astype(d.dtype))
    inf_nan = ~finite
    small = (np.abs(b) <= sv) & finite
    normal = finite & ~small
    fi = np.finfo(d.dtype)
    bc = np.clip(b.astype(d.dtype), fi.min, fi.max)
    dc = np.clip(d, fi.min, fi.max)
    ok = (np.abs(dc - bc) / abe <= rtol) | (np.isnan(d) & np.isnan(bc))
    n_inf = np.sum(inf_nan)
    c["inf_nan_error_ratio"] = 0 if n_inf == 0 else np.sum(~ok & inf_nan) / n_inf
    n_norm = np.sum(normal)
    c["rel_err_ratio"] = 0 if n_norm == 0 else np.sum((rel > rtol) & normal) / n_norm
    n_small = np.sum(small)
    c["abs_err_ratio"] = 0 if n_small == 0 else np.sum((abs_err > atol) & small) / n_small
    return c


def np_ulp(b, d, min_eb=-126, m=23, thr=32):
    c, _, _, _ = np_common(b, d)
    ab = np.abs(b)
    with np.errstate(divide="ignore"):
        eb = np.where(ab == 0, 0, np.floor(np.log2(ab)))
    eb = np.maximum(eb, min_eb)
    ulp = np.abs((d.astype(np.float64) - b).astype(np.float64) * np.exp2(-eb + m).astype(np.float64))
    c["max_ulp_err"] = np.max(ulp)
    c["mean_ulp_err"] = np.mean(ulp)
    c["ulp_err_proportion"] = np.sum(ulp > thr) / b.size
    return c


CASES = [
    ("benchmark (gelu)", "benchmark", np_benchmark,
     ["rmse", "max_rel_err", "mean_rel_err", "eb", "small_value_err_ratio"]),
    ("absolute threshold (mul)", "absolute_threshold", np_absolute,
     ["inf_nan_error_ratio", "rel_err_ratio", "abs_err_ratio"]),
    ("ULP (matmul)", "ulp_compare", np_ulp, ["max_ulp_err", "mean_ulp_err", "ulp_err_proportion"]),
]


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def close(a, b):
    a, b = float(a), float(b)
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-12)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=64 * 1024 * 1024)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(20250207)
    b = rng.standard_normal(args.n, dtype=np.float32)
    b[::1000] *= 1e-7  # some small values
    d = (b * (1 + rng.standard_normal(args.n, dtype=np.float32) * 1e-4)).astype(np.float32)
    gb = 2 * b.nbytes / 1e9
    print(f"{args.n} float32 elements per side ({gb:.2f} GB read per pair), best of {args.repeat}\n")
    print("| check (fp32 output pair) | numpy | msprobe C++ | C++ throughput | ratio |")
    print("|---|---|---|---|---|")
    for label, std, np_fn, keys in CASES:
        t_np, ref = best_of(lambda: np_fn(b, d), args.repeat)
        t_cc, ours = best_of(lambda: _core.float_metrics(b, d, std), args.repeat)
        for k in keys:
            assert close(getattr(ours, k), ref[k]), (label, k, getattr(ours, k), ref[k])
        assert close(ours.cosine.value, ref["cos"]), (label, "cos")
        assert close(ours.max_abs_err, ref["max_abs"])
        for k, name in enumerate(("hundredth", "thousandth", "ten_thousandth")):
            assert close(getattr(ours, name), ref["r"][k]), (label, name)
        print(f"| {label} | {t_np:.3f} s | {t_cc:.3f} s | {args.n / t_cc / 1e6:.0f} M elem/s "
              f"({gb / t_cc:.2f} GB/s) | **{t_np / t_cc:.1f}x** |")
    # An fp32 API as run_ut checks it: float64 bench against the float32 device output.
    b64 = b.astype(np.float64)
    t_np, ref = best_of(lambda: np_benchmark(b64, d), args.repeat)
    t_cc, ours = best_of(lambda: _core.float_metrics(b64, d, "benchmark"), args.repeat)
    for k in ("rmse", "max_rel_err", "mean_rel_err", "eb", "small_value_err_ratio"):
        assert close(getattr(ours, k), ref[k]), ("fp64 bench", k, getattr(ours, k), ref[k])
    print(f"| benchmark, float64 bench (fp32 API) | {t_np:.3f} s | {t_cc:.3f} s | "
          f"{args.n / t_cc / 1e6:.0f} M elem/s | **{t_np / t_cc:.1f}x** |")
    b64 = None  # frees the float64 copy
    # An fp16 API: float32 bench against the float16 device output (fp16 thresholds).
    d16 = d.astype(np.float16)
    t_np, ref = best_of(lambda: np_benchmark(b, d16, sv=2.0 ** -10, atol=1e-16), args.repeat)
    t_cc, ours = best_of(lambda: _core.float_metrics(b, d16, "benchmark"), args.repeat)
    for k in ("rmse", "max_rel_err", "mean_rel_err", "eb", "small_value_err_ratio"):
        assert close(getattr(ours, k), ref[k]), ("fp16 device", k, getattr(ours, k), ref[k])
    print(f"| benchmark, float16 device (fp16 API) | {t_np:.3f} s | {t_cc:.3f} s | "
          f"{args.n / t_cc / 1e6:.0f} M elem/s | **{t_np / t_cc:.1f}x** |")
    d16 = None  # frees the float16 copy
    # The full run_ut verdict (standard + decision chain + formatted cells) for one output.
    t_cc, _ = best_of(lambda: _core.compare_output("gelu", b, d), args.repeat)
    print(f"| compare_output('gelu') (verdict + cells) | - | {t_cc:.3f} s | "
          f"{args.n / t_cc / 1e6:.0f} M elem/s | - |")


if __name__ == "__main__":
    main()
