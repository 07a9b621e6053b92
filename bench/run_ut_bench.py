"""run_ut throughput: ours vs the original msprobe 1.2.1 on the same dumps, side by side.

    python bench/run_ut_bench.py [--orig-python ../orig/bin/python] [--repeat 7] [--runs 3]
                                 [--out bench/RESULTS_run_ut.md]

Needs our msprobe importable (e.g. `eval "$(scripts/dev_build.sh bench)"`) and torch. Two dumps:
  * real data: tests/fixtures/run_ut_1.2.1/make_dump.py's body() called `--repeat` times in one step
    with our PrecisionDebugger(task="tensor", level="L1") -> >= 500 forward API calls with .pt files;
  * statistics only: tests/fixtures/run_ut_1.2.1/synthetic.py mixed_entries (inputs generated).
Each tool runs the whole command in a fresh process (the original through
../shared/tools/original_run_ut_on_cpu.py: its run_ut with the CPU as the device, as ours uses
the CPU here); the time of the same command on an empty dump (start-up: imports) is measured too,
so the table gives APIs/s both end to end and for the replay loop alone. Both tools' verdicts on the
real-data dump are compared (they must agree).
"""
import argparse
import csv
import glob
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "run_ut_1.2.1")
ORIG_TOOL = "../shared/tools/original_run_ut_on_cpu.py"


def make_real_dump(workdir, repeat):
    code = f"""
import sys
sys.path.insert(0, {FIXTURES!r})
import make_dump
from msprobe.pytorch import PrecisionDebugger, seed_all
seed_all(seed=1234, mode=False, rm_dropout=False)
d = PrecisionDebugger(task="tensor", dump_path="./dump", level="L1")
d.start()
for _ in range({repeat}):
    make_dump.body()
d.stop()
d.step()
"""
    subprocess.run([sys.executable, "-c", code], cwd=workdir, check=True, capture_output=True)
    return os.path.join(workdir, "dump", "step0", "rank", "dump.json")


def make_stat_dump(workdir, n):
    sys.path.insert(0, FIXTURES)
    import synthetic
    return synthetic.write_dump(os.path.join(workdir, "stat", "dump.json"), synthetic.mixed_entries(n, size=32))


def forward_count(dump):
    with open(dump) as f:
        return sum(1 for k in json.load(f)["data"] if k.endswith(".forward"))


def timed(cmd, env=None, cwd=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} failed:\n{r.stderr[-3000:]}")
    return dt


def ours_cmd(dump, out, multi=0):
    cmd = [sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "multi_run_ut" if multi else "run_ut",
           "-api_info", dump, "-o", out]
    return cmd + (["-n", str(multi)] if multi else [])


def orig_cmd(orig_python, dump, out):
    return [orig_python, ORIG_TOOL, dump, out]


def orig_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(FIXTURES, "shim")  # the original's venv, plus the import stub
    return env


def statuses(out):
    path = glob.glob(os.path.join(out, "accuracy_checking_result_*.csv"))[0]
    with open(path, encoding="utf-8-sig", newline="") as f:
        return {row[0]: tuple(row[1:3]) for row in list(csv.reader(f))[1:]}


def measure(label, make_cmd, dump, empty, runs, tmp, env=None):
    walls, starts = [], []
    out = None
    for k in range(runs):
        out = os.path.join(tmp, f"{label}_{k}")
        walls.append(timed(make_cmd(dump, out), env=env))
        starts.append(timed(make_cmd(empty, os.path.join(tmp, f"{label}_empty_{k}")), env=env))
    return statistics.median(walls), statistics.median(starts), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--orig-python", default="../orig/bin/python")
    ap.add_argument("--repeat", type=int, default=7, help="body() calls in the real-data dump")
    ap.add_argument("--stat-apis", type=int, default=600)
    ap.add_argument("--runs", type=int, default=3, help="runs of our tool per case (median)")
    ap.add_argument("--orig-runs", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS_run_ut.md"))
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="run_ut_bench_")
    try:
        real = make_real_dump(tmp, a.repeat)
        stat = make_stat_dump(tmp, a.stat_apis)
        empty = os.path.join(tmp, "empty", "dump.json")
        os.makedirs(os.path.dirname(empty))
        with open(empty, "w") as f:
            json.dump({"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": None,
                       "data": {}}, f)
        cores = os.cpu_count()
        rows = []
        agree = None
        for case, dump in (("real data (.pt)", real), ("statistics only", stat)):
            n = forward_count(dump)
            o_wall, o_start, o_out = measure("orig_" + case[:4], lambda d, o: orig_cmd(a.orig_python, d, o), dump,
                                             empty, a.orig_runs, tmp, env=orig_env())
            s_wall, s_start, s_out = measure("ours_" + case[:4], ours_cmd, dump, empty, a.runs, tmp)
            m_wall, m_start, _ = measure("multi_" + case[:4], lambda d, o: ours_cmd(d, o, multi=cores), dump,
                                         empty, a.runs, tmp)
            if case.startswith("real"):
                so, oo = statuses(s_out), statuses(o_out)
                agree = (sum(so.get(k) == v for k, v in oo.items()), len(oo),
                         [f"{k}: original {v}, ours {so.get(k)}" for k, v in oo.items() if so.get(k) != v][:5])
            rows.append((case, n, o_wall, o_start, s_wall, s_start, m_wall, m_start))
            print(f"{case}: {n} APIs  original {o_wall:.1f}s  ours {s_wall:.1f}s  multi_run_ut -n {cores} "
                  f"{m_wall:.1f}s", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    import torch
    lines = [
        "# run_ut benchmark: ours vs the original msprobe 1.2.1",
        "",
        f"Produced by `python bench/run_ut_bench.py` ({time.strftime('%Y-%m-%d')}); host: {platform.machine()}, "
        f"{os.cpu_count()} CPU cores, no GPU (both tools use the CPU as the device), Python "
        f"{platform.python_version()}, torch {torch.__version__}. The original is mindstudio-probe 1.2.1 in "
        f"`{os.path.relpath(a.orig_python, ROOT) if os.path.isabs(a.orig_python) else a.orig_python}` "
        f"run through `{ORIG_TOOL}`. Each row is one whole command in a fresh process "
        f"(median of {a.runs} runs for ours, {a.orig_runs} for the original); start-up = the same command "
        "on an empty dump.json (imports, file set-up).",
        "",
        "| dump | APIs | original s | ours s | ours multi_run_ut s | original APIs/s | ours APIs/s | ratio | "
        "ratio without start-up | multi_run_ut ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for case, n, o_wall, o_start, s_wall, s_start, m_wall, m_start in rows:
        loop_ratio = (o_wall - o_start) / max(s_wall - s_start, 1e-9)
        lines.append(f"| {case} | {n} | {o_wall:.1f} | {s_wall:.1f} | {m_wall:.1f} (-n {os.cpu_count()}) | "
                     f"{n / o_wall:.1f} | {n / s_wall:.1f} | **{o_wall / s_wall:.1f}x** | {loop_ratio:.1f}x | "
                     f"{o_wall / m_wall:.1f}x |")
    lines += [
        "",
        f"Start-up (empty dump): original {rows[0][3]:.1f} s, ours {rows[0][5]:.1f} s.",
        "",
        f"Verdicts on the real-data dump: {agree[0]}/{agree[1]} APIs with the same Forward/Backward status "
        "in both tools." + ("".join(f"\n- {d}" for d in agree[2])) if agree else "",
        "",
        "Where the original spends its time per API: a Python module object per call, numpy copies per "
        "metric, a CSV file opened, checked and closed per row, torch_ut_setting.json re-read per API and "
        "gc.collect() after every API. Ours: C++ metrics in one pass over each tensor (GIL released), one "
        "write per file per API, seeds set on the CPU generator only, garbage collection every 200 APIs.",
        "",
    ]
    with open(a.out, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
