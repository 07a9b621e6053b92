"""MindSpore run_ut end to end: ours vs the original msprobe 1.2.1 on the same dumps.

    python bench/ms_run_ut_bench.py --ms-python build/ms-torch-venv/bin/python \
        [--orig-python ../orig121ms/bin/python] [--repeat 40] [--out bench/RESULTS_ms_run_ut.md]

--ms-python must import our msprobe (e.g. PYTHONPATH=<our site-packages>) and torch
(build/ms-torch-venv of scripts/mindspore_env.sh --torch); the original's
venv needs mindspore, numpy<2, mindstudio-probe 1.2.1 and torch==2.13.0. Two dumps of
tests/mindspore/ms_run_ut_net.py with --repeat passes in one step (40 -> 520 checked APIs), made
by our msprobe: a tensor dump (npy) and a statistics dump. Each tool runs
`msprobe -f mindspore run_ut` in a fresh process (the original through its own CLI after
tests/mindspore/orig_shim.py); both result files must hold the same statuses.
"""
import argparse
import csv
import glob
import json
import os
import platform
import resource
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NET = os.path.join(ROOT, "tests", "mindspore", "ms_run_ut_net.py")
CONFIGS = {
    "tensor": {"task": "tensor", "level": "L1", "rank": [], "step": [],
               "tensor": {"scope": [], "list": [], "data_mode": ["all"], "file_format": "npy"}},
    "statistics": {"task": "statistics", "level": "L1", "rank": [], "step": [],
                   "statistics": {"scope": [], "list": [], "data_mode": ["all"], "summary_mode": "statistics"}},
}
ORIG_CLI = ("import sys; sys.path.insert(0, {tests!r}); import orig_shim; from msprobe.msprobe import main; "
            "sys.argv = ['msprobe'] + sys.argv[1:]; main()")
OURS_CLI = "import sys; from msprobe.cli import main; sys.exit(main(sys.argv[1:]))"


def make_dump(ms_python, work, kind, repeat):
    cfg = dict(CONFIGS[kind], dump_path=os.path.join(work, f"dump_{kind}"))
    path = os.path.join(work, f"{kind}.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    subprocess.run([ms_python, NET, "--config", path, "--repeat", str(repeat)], check=True, cwd=work,
                   capture_output=True)
    return os.path.join(cfg["dump_path"], "step0", "rank", "dump.json")


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env, out):
    """(wall s, CPU s of the command: user + system, all its threads, rows by API)."""
    os.makedirs(out)
    c, t = _children_cpu(), time.perf_counter()
    subprocess.run(cmd, check=True, env=env, capture_output=True)
    elapsed, cpu = time.perf_counter() - t, _children_cpu() - c
    (result,) = glob.glob(os.path.join(out, "accuracy_checking_result_*.csv"))
    with open(result, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))[1:]
    return elapsed, cpu, {r[0]: tuple(r[1:3]) for r in rows}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ms-python", required=True)
    p.add_argument("--orig-python", default="../orig121ms/bin/python")
    p.add_argument("--repeat", type=int, default=40)
    p.add_argument("--runs", type=int, default=3, help="runs of each tool, interleaved; the median is shown")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS_ms_run_ut.md"),
                   help="the table; its target rows go to the .json beside it (read by run_benchmarks.py)")
    args = p.parse_args()
    args.orig_python, args.ms_python = os.path.abspath(args.orig_python), os.path.abspath(args.ms_python)
    work = tempfile.mkdtemp(prefix="ms_run_ut_bench_")
    ours_env = dict(os.environ)
    orig_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    orig_env["MSPROBE_ORIGINAL_SHIM"] = "1"
    rows = []
    for kind in ("tensor", "statistics"):
        dump = make_dump(args.ms_python, work, kind, args.repeat)
        if kind == "tensor":  # the original reads tensors from the dump_data_dir written in dump.json
            assert json.load(open(dump))["dump_data_dir"]
        orig_times, ours_times, orig_cpu, ours_cpu = [], [], [], []
        for run in range(args.runs):
            o = os.path.join(work, f"orig_{kind}_{run}")
            orig_cli = ORIG_CLI.format(tests=os.path.join(ROOT, "tests", "mindspore"))
            t, c, r_orig = timed([args.orig_python, "-c", orig_cli,
                                  "-f", "mindspore", "run_ut", "-api_info", dump, "-o", o], orig_env, o)
            orig_times.append(t)
            orig_cpu.append(c)
            o = os.path.join(work, f"ours_{kind}_{run}")
            t, c, r_ours = timed([args.ms_python, "-c", OURS_CLI, "-f", "mindspore", "run_ut", "-api_info", dump,
                                  "-o", o], ours_env, o)
            ours_times.append(t)
            ours_cpu.append(c)
        t_orig, t_ours = statistics.median(orig_times), statistics.median(ours_times)
        c_orig, c_ours = statistics.median(orig_cpu), statistics.median(ours_cpu)
        same = sum(1 for k, v in r_orig.items() if r_ours.get(k) == v)
        rows.append((kind, len(r_orig), t_orig, t_ours, c_orig, c_ours, same))
        print(kind, len(r_orig), f"{t_orig:.1f}s", f"{t_ours:.1f}s", f"cpu {c_orig:.1f}s {c_ours:.1f}s",
              f"same {same}/{len(r_orig)}", flush=True)
    lines = ["# MindSpore run_ut benchmark: ours vs the original msprobe 1.2.1", "",
             f"Produced by `python bench/ms_run_ut_bench.py` ({time.strftime('%Y-%m-%d')}); host: "
             f"{platform.machine()}, {os.cpu_count()} CPU cores, MindSpore 2.10 and torch 2.13.0 on the CPU. "
             "One whole `msprobe -f mindspore run_ut` command per run, fresh process; "
             f"median of {args.runs} runs per tool, interleaved (the host is shared with other jobs). "
             "Dumps: tests/mindspore/ms_run_ut_net.py, "
             f"--repeat {args.repeat}.", "",
             "| dump | APIs checked | original s | ours s | ratio | original CPU s | ours CPU s | CPU ratio "
             "| same statuses |",
             "|---|---|---|---|---|---|---|---|---|"]
    for kind, n, t_orig, t_ours, c_orig, c_ours, same in rows:
        lines.append(f"| {kind} | {n} | {t_orig:.1f} | {t_ours:.1f} | **{t_orig / t_ours:.1f}x** | {c_orig:.1f} "
                     f"| {c_ours:.1f} | {c_orig / c_ours:.1f}x | {same}/{n} |")
    lines += ["", "Wall time is the target; CPU time (user + system of the whole command, all threads) "
              "shows the work itself, which the other jobs of a shared host do not stretch."]
    lines += ["", "Where the original spends its time: it re-reads checker_support_api.yaml for every key of "
              "dump.json, and opens, checks and closes both CSV files for every API; ours reads the dump once "
              "in C++, computes the metrics in one C++ pass per output and appends each API with one write "
              "per file.", "",
              "On the statistics dump both tools also run every API in MindSpore on the CPU. Ours launches "
              "MindSpore's operators synchronously (`mindspore.runtime.launch_blocking()`): for these tiny "
              "tensors, read back at once, the asynchronous launch only adds a hand-over to MindSpore's launch "
              "threads per operator and a wait per output (same kernels, same rows; half the replay time). "
              "It also pauses Python's garbage collector while torch and MindSpore load and freezes their "
              "objects out of later collections, which otherwise walk millions of them (a fifth of the CPU "
              "time). What is left of ours is mostly importing MindSpore and torch (about 2 s of each run, as for "
              "1.2.1); the tensor dump runs PyTorch only and never imports MindSpore."]
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    targets = [{"name": f"MindSpore run_ut, {kind} dump, {n} APIs: wall time original / ours (whole command)",
                "measured": f"{t_orig / t_ours:.1f} (ours {t_ours:.1f} s, original {t_orig:.1f} s; "
                            f"CPU time {c_orig / c_ours:.1f}x; same statuses {same}/{n})",
                "cpu": "", "limit": "≥ 5", "ok": t_orig / t_ours >= 5}
               for kind, n, t_orig, t_ours, c_orig, c_ours, same in rows]
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M"), "commit": commit, "targets": targets}, f, indent=1)


if __name__ == "__main__":
    main()
