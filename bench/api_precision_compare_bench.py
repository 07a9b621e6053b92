"""api_precision_compare on a large details-CSV pair: our CLI against the original 1.2.1's.

    PYTHONPATH=... python bench/api_precision_compare_bench.py [--rows 50000] [--skip-original]

Generates an NPU and a GPU `accuracy_checking_details` CSV (deterministic; every standard and
dtype, 1-3 outputs per API, forward and backward, some NPU-only rows), runs both CLIs end to end
(`msprobe -f pytorch api_precision_compare -npu ... -gpu ... -o ...`, a fresh process each, as a
user would), checks that the outputs agree, and prints a Markdown table. The original needs
minutes at 50k rows (its GPU lookup filters the whole table once per row, and it reopens both
output files for every row).
"""
import argparse
import csv
import glob
import os
import random
import subprocess
import sys
import tempfile
import time

HEADER = ["API Name", "Bench Dtype", "DEVICE Dtype", "Shape", "余弦相似度", "最大绝对误差",
          "双百指标", "双千指标", "双万指标", "二进制一致错误率", "误差均衡性", "均方根误差",
          "小值域错误占比", "相对误差最大值", "相对误差平均值", "inf/nan错误率", "相对误差错误率",
          "绝对误差错误率", "ULP误差最大值", "ULP误差平均值", "ULP误差大于阈值占比", "Status",
          "Message"]
# (API, family, standard columns filled, device dtypes)
APIS = [("gelu", "Functional", "bench", ["torch.float16", "torch.bfloat16", "torch.float32"]),
        ("softmax", "Torch", "bench", ["torch.float16", "torch.float32"]),
        ("layer_norm", "Functional", "bench", ["torch.bfloat16", "torch.float32"]),
        ("matmul", "Torch", "ulp", ["torch.float16", "torch.bfloat16", "torch.float32"]),
        ("linear", "Functional", "ulp", ["torch.float32"]),
        ("mul", "Torch", "abs", ["torch.float16", "torch.bfloat16", "torch.float32"]),
        ("add", "Tensor", "abs", ["torch.float32"]),
        ("conv2d", "Functional", "k", ["torch.float32", "torch.float16"]),
        ("abs", "Torch", "bin", ["torch.float16"]),
        ("argmax", "Torch", "bin", ["torch.int64"]),
        ("sum", "Tensor", "bench", ["torch.float64"])]

SHIM = {
    "__init__.py": "class VerificationError(Exception):\n    pass\n",
    "hazmat.py": "class DNS_ID:\n    pass\n\n\nclass IPAddress_ID:\n    pass\n\n\nclass ServiceID:\n"
                 "    pass\n\n\ndef verify_service_identity(*a, **k):\n    raise NotImplementedError\n",
    "pyopenssl.py": "def extract_ids(*a, **k):\n    raise NotImplementedError\n\n\n"
                    "def verify_hostname(*a, **k):\n    raise NotImplementedError\n\n\n"
                    "def verify_ip_address(*a, **k):\n    raise NotImplementedError\n",
}


def fmt(x):
    return "{:.14f}".format(x)


def metric(rng, scale):
    return fmt(scale * 10 ** rng.uniform(-3, 0))


def row(rng, name, dtype, kind):
    r = {h: " " for h in HEADER}
    r.update({"API Name": name, "Bench Dtype": "torch.float32", "DEVICE Dtype": dtype,
              "Shape": "(32, 64)", "余弦相似度": fmt(0.9999), "最大绝对误差": fmt(0.001),
              "Status": "pass", "Message": "Max abs error is less than 0.001, consider as pass."})
    if kind == "bench" or dtype == "torch.float64":
        r.update({"小值域错误占比": metric(rng, 0.01), "均方根误差": metric(rng, 0.001),
                  "相对误差最大值": metric(rng, 0.1), "相对误差平均值": metric(rng, 0.001),
                  "误差均衡性": metric(rng, 0.1)})
    elif kind == "ulp":
        r.update({"ULP误差最大值": metric(rng, 100), "ULP误差平均值": metric(rng, 50),
                  "ULP误差大于阈值占比": metric(rng, 0.01)})
    elif kind == "abs":
        z = fmt(0.0)
        r.update({"inf/nan错误率": z, "相对误差错误率": z if rng.random() < 0.9 else metric(rng, 0.01),
                  "绝对误差错误率": z})
    elif kind == "k":
        r["双千指标"] = fmt(1.0 if rng.random() < 0.9 else 0.998)
    else:
        r["二进制一致错误率"] = fmt(0.0 if rng.random() < 0.95 else 0.01)
    return [r[h] for h in HEADER]


def make_pair(rows, folder):
    rng = random.Random(20250207)
    npu, gpu = [], []
    api_index = 0
    while len(npu) < rows:
        api, family, kind, dtypes = APIS[api_index % len(APIS)]
        dtype = dtypes[(api_index // len(APIS)) % len(dtypes)]
        base = f"{family}.{api}.{api_index}"
        api_index += 1
        for direction, outputs in (("forward", rng.randint(1, 3)), ("backward", rng.randint(0, 2))):
            for k in range(outputs):
                name = f"{base}.{direction}.output.{k}"
                npu.append(row(rng, name, dtype, kind))
                if rng.random() < 0.995:  # a few NPU-only rows
                    gpu.append(row(rng, name, dtype, kind))
    npu = npu[:rows]
    rng.shuffle(gpu)  # the GPU file's order does not matter
    paths = []
    for role, data in (("npu", npu), ("gpu", gpu)):
        path = os.path.join(folder, f"{role}_accuracy_checking_details.csv")
        with open(path, "w", encoding="utf-8-sig", newline="") as f:
            w = csv.writer(f)
            w.writerow(HEADER)
            w.writerows(data)
        paths.append(path)
    return paths


def run(cmd, env, cwd):
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({r.returncode}):\n{r.stderr[-2000:]}")
    return wall


def outputs(folder):
    return [sorted(glob.glob(os.path.join(folder, f"api_precision_compare_{k}_*.csv")))[-1]
            for k in ("result", "details")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=50000)
    ap.add_argument("--original", default="../orig/bin/msprobe")
    ap.add_argument("--skip-original", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        npu, gpu = make_pair(args.rows, tmp)
        size = (os.path.getsize(npu) + os.path.getsize(gpu)) / 1e6
        ours_env = dict(os.environ)
        ours_dir = os.path.join(tmp, "ours")
        t_ours = run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "api_precision_compare",
                      "-npu", npu, "-gpu", gpu, "-o", ours_dir], ours_env, tmp)
        # The C++ core alone (no interpreter start-up, no imports).
        from msprobe import _core
        t = time.perf_counter()
        _core.api_precision_compare(npu, gpu, os.path.join(tmp, "r.csv"), os.path.join(tmp, "d.csv"))
        t_core = time.perf_counter() - t
        print(f"{args.rows} NPU rows ({size:.1f} MB of CSV in all)\n")
        print("| run | wall time | ratio |")
        print("|---|---|---|")
        if not args.skip_original:
            shim = os.path.join(tmp, "shim", "service_identity")
            os.makedirs(shim)
            for name, text in SHIM.items():
                with open(os.path.join(shim, name), "w") as f:
                    f.write(text)
            orig_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            orig_env["PYTHONPATH"] = os.path.join(tmp, "shim")
            orig_dir = os.path.join(tmp, "orig")
            t_orig = run([args.original, "-f", "pytorch", "api_precision_compare", "-npu", npu,
                          "-gpu", gpu, "-o", orig_dir], orig_env, tmp)
            for mine, theirs in zip(outputs(ours_dir), outputs(orig_dir)):
                with open(mine, "rb") as a, open(theirs, "rb") as b:
                    assert a.read() == b.read(), f"outputs differ: {mine} vs {theirs}"
            print(f"| original 1.2.1 CLI | {t_orig:.1f} s | 1x |")
            print(f"| msprobe CLI (ours, process start to exit) | {t_ours:.2f} s | "
                  f"**{t_orig / t_ours:.0f}x** |")
            print(f"| msprobe C++ core only (`_core.api_precision_compare`) | {t_core:.3f} s | "
                  f"{t_orig / t_core:.0f}x |")
            print("\nBoth runs wrote byte-identical result and details files.")
        else:
            print(f"| msprobe CLI (ours, process start to exit) | {t_ours:.2f} s | - |")
            print(f"| msprobe C++ core only | {t_core:.3f} s | - |")


if __name__ == "__main__":
    main()
