#!/usr/bin/env python
"""Side-by-side benchmark: our msprobe against the original msprobe 1.2.1, written to BENCHMARKS.md.

    python bench/run_benchmarks.py            # R=3 repetitions of every process, ~20-30 min

For every repetition, every mode of bench/gpt_step.py runs once with our package (this tree,
built into build/dev-bench and put on PYTHONPATH, never installed) and once with the original
(a separate virtual environment, ../orig/bin/python, clean environment without PYTHONPATH),
interleaved: mode order rotates per repetition and the package order alternates per mode, so
that slow drifts in machine load hit both packages alike. Ratios are always against the
"none" step of the same package's interpreter. Then the C++ statistics microbenchmark
(build/dev-bench/stats_bandwidth_bench) runs and everything is written to BENCHMARKS.md.
Raw per-process JSON and logs go to build/bench-results/<timestamp>/.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPT_STEP = os.path.join(ROOT, "bench", "gpt_step.py")
WRAPPER_COST = os.path.join(ROOT, "bench", "wrapper_cost.py")
MODES = ("none", "off", "L1_statistics", "mix_statistics", "L1_md5", "L1_tensor")
PROBE_MODES = MODES[1:]

# (warmup, timed steps) per mode. The original is slow in the dumping modes (seconds per step,
# L1 tensor ~10 s), so its step counts are capped; never fewer than 3 timed steps.
OURS_STEPS = {"none": (2, 10), "off": (2, 10), "L1_statistics": (2, 10),
              "mix_statistics": (2, 10), "L1_md5": (2, 10), "L1_tensor": (1, 4)}
ORIG_STEPS = {"none": (2, 10), "off": (2, 10), "L1_statistics": (1, 5),
              "mix_statistics": (1, 4), "L1_md5": (1, 5), "L1_tensor": (1, 3)}

TARGETS = {  # step-time ratio vs no probe, same package
    "off": 1.03, "L1_statistics": 1.5, "mix_statistics": 1.8, "L1_md5": 1.8,
}
OVERHEAD_FACTOR = 5.0      # ours (ratio - 1) at least 5x smaller than the original's
RSS_SLACK = 0.10           # tensor peak RSS <= (none RSS + writer bound) * 1.10
BANDWIDTH_TARGET = 0.50    # compute_stats >= 50% of single-core memcpy bandwidth


# (link label, bench/<stem>.json): runs of their own whose "targets" rows join BENCHMARKS.md.
SIDE_RUNS = [("overflow run", "RESULTS_overflow"), ("report run", "RESULTS_report"),
             ("compare run", "RESULTS_compare"), ("grad_probe run", "RESULTS_grad"),
             ("free_benchmark run", "RESULTS_free_benchmark"), ("MindSpore run_ut run", "RESULTS_ms_run_ut"),
             ("monitor run", "RESULTS_monitor")]


def shown_path(path):
    """A path as the results print it: relative to the repository root, so that no file names
    this machine's folders."""
    return os.path.relpath(path, ROOT) if os.path.isabs(path) else path


def shown_command(script):
    """The command line of this run, its absolute paths shown relative to the repository root."""
    return " ".join(["python", script] + [shown_path(a) if os.path.isabs(a) else a
                                           for a in sys.argv[1:]])


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def build_ours():
    """Runs scripts/dev_build.sh bench; returns the overlay PYTHONPATH."""
    out = subprocess.run([os.path.join(ROOT, "scripts", "dev_build.sh"), "bench"], cwd=ROOT,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"export PYTHONPATH=(\S+)", out)
    if not m:
        sys.exit(f"scripts/dev_build.sh printed no PYTHONPATH: {out!r}")
    return m.group(1)


def dir_bytes(path):
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return total


def clean_env(extra=None, pythonpath=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
           and not k.startswith("MSPROBE_")}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    env["OMP_NUM_THREADS"] = "1"
    env["MKL_NUM_THREADS"] = "1"
    env.update(extra or {})
    return env


def run_step_process(cmd, env, tag, out, work, cwd, args, pkg, check_package):
    """Runs one step process (gpt_step.py, ms_decoder_step.py) with its output in
    logs/TAG.log under args.results_dir, and measures its wall time and the dump it left in
    WORK/dump (then removed). Returns its result JSON (OUT) with wall_s and dump_bytes added, or
    None, logged, when it failed; exits when it imported another msprobe than `pkg`."""
    t0 = time.perf_counter()
    with open(os.path.join(args.results_dir, "logs", tag + ".log"), "w") as logf:
        proc = subprocess.run(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT, cwd=cwd,
                              timeout=args.process_timeout)
    wall = time.perf_counter() - t0
    dump_bytes = dir_bytes(os.path.join(work, "dump"))
    shutil.rmtree(work, ignore_errors=True)
    if dump_bytes > 2**28:
        os.sync()  # let the next process start without this one's writeback
    if proc.returncode != 0:
        log(f"FAILED {tag} (exit {proc.returncode}); see logs/{tag}.log")
        return None
    with open(out) as f:
        r = json.load(f)
    if check_package and r["package"] != pkg:
        sys.exit(f"{tag}: expected package {pkg}, the process imported {r['package']} "
                 f"from {r['msprobe_dir']}")
    r.update(wall_s=wall, dump_bytes=dump_bytes)
    return r


def paired_groups(results):
    """{(pkg, key): {"on", "off", "on_cpu", "off_cpu"}}: the probe-on and probe-off step times of
    the paired step processes (grad_step.py, monitor_step.py), pooled per package and mode."""
    groups = {}
    for r in results:
        g = groups.setdefault((r["pkg"], r["key"]), {"on": [], "off": [], "on_cpu": [], "off_cpu": []})
        g["on"] += r["step_times_s"]
        g["off"] += r["off_times_s"]
        g["on_cpu"] += r["step_cpu_s"]
        g["off_cpu"] += r["off_cpu_s"]
    return groups


def paired_ratio(groups, pkg, key, kind=""):
    """Median probe-on step / median probe-off step (kind "_cpu": CPU time), or None."""
    g = groups.get((pkg, key))
    if not g or not g["on" + kind] or not g["off" + kind]:
        return None
    return statistics.median(g["on" + kind]) / statistics.median(g["off" + kind])


def interleaved(keys, pkgs, reps):
    """(rep, pkg, key) in the order the processes run: the key order rotates per repetition and
    the package order alternates per key, so that slow drifts in load hit both packages alike."""
    for rep in range(reps):
        order = keys[rep % len(keys):] + keys[:rep % len(keys)]
        for i, key in enumerate(order):
            for pkg in (pkgs if (i + rep) % 2 == 0 else pkgs[::-1]):
                yield rep, pkg, key


def load_average():
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def run_meta(script, started, load_start, **extra):
    """The facts of a finished run that its report prints (`started`: time.time() at the start)."""
    commit, dirty = git_state()
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "wall_min": (time.time() - started) / 60, "argv": shown_command(script),
            "machine": machine_description(), "load_start": load_start, "load_end": load_average(),
            "commit": commit, "dirty": dirty}
    meta.update(extra)
    return meta


def date_and_machine_lines(meta):
    return [f"- Date: {meta['date']} (wall time {meta['wall_min']:.0f} min). Command: `{meta['argv']}`.",
            f"- Machine: {meta['machine']}. Shared with other jobs, so every number is a median over "
            f"processes run interleaved in this one run; load average {meta['load_start']} at start, "
            f"{meta['load_end']} at end."]


def steps_per_process_line(reps, ours_steps, orig_steps, quick_note):
    """The report line of processes per (package, mode) and their warmup/timed steps."""
    return (f"- {reps} processes per (package, mode); warmup/timed steps per process: ours "
            + ", ".join(f"{k} {a}/{b}" for k, (a, b) in ours_steps.items()) + "; original "
            + ", ".join(f"{k} {a}/{b}" for k, (a, b) in orig_steps.items()) + quick_note + ".")


class TargetTable:
    """The "Targets" table of a report: one row per target, its verdict PASS, FAIL or n/a (None)."""

    def __init__(self, write):
        self.write, self.verdicts = write, []
        write("| Target | Measured (wall) | CPU time | Limit | Result |")
        write("|---|---|---|---|---|")

    def row(self, name, measured, cpu, limit, ok):
        self.verdicts.append(ok)
        res = "n/a" if ok is None else ("PASS" if ok else "**FAIL**")
        self.write(f"| {name} | {measured} | {cpu} | {limit} | {res} |")

    def passed(self):
        return sum(1 for v in self.verdicts if v)

    def failed(self):
        return sum(1 for v in self.verdicts if v is False)


def step_time_cells(groups, key):
    """The cells both packages' step-time tables share, after the mode: each package's median
    step, ratio (fastest steps' ratio) and CPU ratio, then the overhead factors (wall, CPU)."""
    g, o = groups.get(("ours", key)), groups.get(("original", key))
    rg, ro = ratio(groups, "ours", key), ratio(groups, "original", key)
    rgm, rom = ratio(groups, "ours", key, "min"), ratio(groups, "original", key, "min")
    rgc, roc = ratio(groups, "ours", key, "cpu_median"), ratio(groups, "original", key, "cpu_median")
    fac = "—" if key == "none" else f"{factor(rg, ro)}, {factor(rgc, roc)}"
    return (f"{fmt(g and g['median'])} | {fmt(rg)} ({fmt(rgm)}) | {fmt(rgc)} | "
            f"{fmt(o and o['median'])} | {fmt(ro)} ({fmt(rom)}) | {fmt(roc)} | {fac}")


def dump_mib_cell(groups, key):
    """Median dump MiB per step, ours and the original's."""
    g, o = groups.get(("ours", key)), groups.get(("original", key))
    return (f"{fmt(g and statistics.median(g['dump']) / 2**20, '.2f')}, "
            f"{fmt(o and statistics.median(o['dump']) / 2**20, '.2f')}")


class Runner:
    def __init__(self, args, overlay):
        self.args = args
        self.overlay = overlay
        self.results_dir = args.results_dir
        os.makedirs(os.path.join(self.results_dir, "logs"), exist_ok=True)
        self.scratch = tempfile.mkdtemp(prefix="msprobe_bench_", dir=args.scratch)
        self.results = []  # dicts from gpt_step.py plus our fields

    def run(self, pkg, mode, rep, key=None, extra_env=None, scratch=None):
        key = key or mode
        warmup, steps = (OURS_STEPS if pkg == "ours" else ORIG_STEPS)[mode]
        if self.args.quick:
            warmup, steps = 1, 3
        python = sys.executable if pkg == "ours" else self.args.orig_python
        env = clean_env(extra_env, self.overlay if pkg == "ours" else None)
        tag = f"r{rep}_{pkg}_{key}"
        out = os.path.join(self.results_dir, tag + ".json")
        work = os.path.join(self.scratch if scratch is None else scratch, tag)
        cmd = [python, GPT_STEP, "--mode", mode, "--steps", str(steps), "--warmup", str(warmup),
               "--threads", "1", "--dump-dir", work, "--out", out]
        r = run_step_process(cmd, env, tag, out, work, self.scratch, self.args, pkg, mode != "none")
        if r is None:
            return None
        r.update(pkg=pkg, key=key, rep=rep, extra_env=extra_env or {})
        self.results.append(r)
        log(f"{tag:30s} median step {statistics.median(r['step_times_s']):7.3f} s "
            f"(cpu {statistics.median(r['step_cpu_s']):6.3f} s)  "
            f"peak RSS {r['peak_rss_kb'] / 1024:7.0f} MiB  dump {r['dump_bytes'] / 2**20:8.1f} MiB  "
            f"({r['wall_s']:.0f} s)")
        return r

    def wrapper_cost(self, pkg, rep):
        python = sys.executable if pkg == "ours" else self.args.orig_python
        env = clean_env(None, self.overlay if pkg == "ours" else None)
        tag = f"r{rep}_{pkg}_wrapper_cost"
        out = os.path.join(self.results_dir, tag + ".json")
        with open(os.path.join(self.results_dir, "logs", tag + ".log"), "w") as logf:
            proc = subprocess.run([python, WRAPPER_COST, "--out", out], env=env, stdout=logf,
                                  stderr=subprocess.STDOUT, cwd=self.scratch,
                                  timeout=self.args.process_timeout)
        if proc.returncode != 0:
            log(f"FAILED {tag} (exit {proc.returncode}); see logs/{tag}.log")
            return None
        with open(out) as f:
            r = json.load(f)
        r.update(pkg=pkg, rep=rep)
        log(f"{tag:28s} extra ns per wrapped call (switch off): "
            + ", ".join(f"{k} {v:.0f}" for k, v in r["delta_ns"].items()))
        return r

    def close(self):
        shutil.rmtree(self.scratch, ignore_errors=True)


def run_microbench(build_dir, runs):
    exe = os.path.join(build_dir, "stats_bandwidth_bench")
    if not os.path.exists(exe):
        return None
    outputs = []
    for _ in range(runs):
        p = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=1800)
        outputs.append(p.stdout)
    return outputs


def parse_microbench(text):
    vals = {}
    for line in text.splitlines():
        m = re.match(r"^(.*?)\s+([\d.]+) GB/s(?:\s+ratio ([\d.]+))?", line)
        if m:
            vals[m.group(1).strip()] = (float(m.group(2)),
                                        float(m.group(3)) if m.group(3) else None)
    return vals


# ------------------------------------------------------------------------------------------
def summarize(results):
    """{(pkg, key): {...}} with timed steps pooled across repetitions."""
    groups = {}
    for r in results:
        g = groups.setdefault((r["pkg"], r["key"]), {
            "times": [], "cpu": [], "rss": [], "dump": [], "steps": 0, "procs": 0,
            "losses": [], "writer_mb": r.get("writer_memory_mb"), "proc_medians": []})
        g["times"] += r["step_times_s"]
        g["cpu"] += r.get("step_cpu_s", [])
        g["proc_medians"].append(statistics.median(r["step_times_s"]))
        g["rss"].append(r["peak_rss_kb"] / 1024)
        g["dump"].append(r["dump_bytes"] / max(1, r["warmup"] + r["steps"]))
        g["steps"] += r["steps"]
        g["procs"] += 1
        g["losses"].append(r["losses"])
    for g in groups.values():
        g["median"] = statistics.median(g["times"])
        g["min"] = min(g["times"])
        g["cpu_median"] = statistics.median(g["cpu"]) if g["cpu"] else None
    return groups


def ratio(groups, pkg, key, stat="median"):
    if (pkg, key) not in groups or (pkg, "none") not in groups:
        return None
    a, b = groups[(pkg, key)][stat], groups[(pkg, "none")][stat]
    return None if a is None or b is None else a / b


def factor(ro, rg):
    """original overhead / our overhead, as text."""
    if ro is None or rg is None:
        return "n/a"
    if ro - 1 <= 0:
        return "∞ (ours ≤ 0)"
    return f"{(rg - 1) / (ro - 1):.1f}"


def fmt(x, spec=".3f", none="n/a"):
    return none if x is None else format(x, spec)


def machine_description():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            mem = f"{int(f.readline().split()[1]) / 2**20:.1f} GiB RAM"
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, {mem}, {platform.system()} {platform.release()}"


def git_state():
    def git(*a):
        return subprocess.run(["git", *a], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout
    commit = git("rev-parse", "--short", "HEAD").strip()
    # Uncommitted changes to what is measured (the package and the C++ microbenchmark).
    dirty = [l[3:] for l in git("status", "--porcelain", "--", "cpp", "python", "CMakeLists.txt",
                                "bench/stats_bandwidth_bench.cc").splitlines() if l.strip()]
    return commit, dirty


LABELS = {"none": "no probe", "off": "probe on, dump off", "L1_statistics": "L1 statistics",
          "mix_statistics": "mix statistics", "L1_md5": "L1 md5", "L1_tensor": "L1 tensor",
          "L1_tensor_tmpfs": "L1 tensor, dump on tmpfs",
          "L1_tensor_small_bound": "L1 tensor, small writer bound"}


def wrapper_summary(wrapper_costs, groups):
    """Per package: median extra ns per switched-off wrapped call, calls per step, estimate."""
    out = {}
    for pkg in ("ours", "original"):
        rs = [r for r in wrapper_costs if r["pkg"] == pkg]
        if not rs:
            continue
        ops = list(rs[0]["delta_ns"])
        per_op = {k: statistics.median(r["delta_ns"][k] for r in rs) for k in ops}
        out[pkg] = {"per_op": per_op, "median_ns": statistics.median(per_op.values()),
                    "before": {k: statistics.median(r["before_ns"][k] for r in rs) for k in ops},
                    "runs": len(rs)}
    calls = next((r["wrapper_calls_per_step"] for r in wrapper_costs
                  if r.get("wrapper_calls_per_step")), None)
    for pkg, w in out.items():
        none = groups.get((pkg, "none"))
        w["calls"] = calls
        if calls and none:
            w["ms_per_step"] = calls * w["median_ns"] / 1e6
            w["ratio"] = 1 + w["ms_per_step"] / 1000 / none["median"]
        else:
            w["ms_per_step"] = w["ratio"] = None
    return out


def write_report(path, args, groups, micro, meta, wrapper_costs):
    L = []
    w = L.append
    wc = wrapper_summary(wrapper_costs, groups)
    w("# Benchmarks")
    w("")
    w("Generated by `bench/run_benchmarks.py` (see [bench/README.md](bench/README.md)); "
      "do not edit by hand, rerun instead. PyTorch; the MindSpore benchmark is "
      "[bench/RESULTS_mindspore.md](bench/RESULTS_mindspore.md) (`bench/run_ms_benchmarks.py`). "
      "The HTML report's size and load time: [bench/RESULTS_report.md](bench/RESULTS_report.md) "
      "(`bench/report_bench.py`). "
      "The overflow_check benchmark: [bench/RESULTS_overflow.md](bench/RESULTS_overflow.md) "
      "(`bench/run_overflow_benchmarks.py`; its target rows are copied into the table below). "
      "The compare benchmark: [bench/RESULTS_compare.md](bench/RESULTS_compare.md) "
      "(`bench/compare_bench.py`; its rows are copied into the table below too). "
      "The grad_probe benchmark: [bench/RESULTS_grad.md](bench/RESULTS_grad.md) "
      "(`bench/run_grad_benchmarks.py`; its rows are copied into the table below too). "
      "The free_benchmark benchmark: [bench/RESULTS_free_benchmark.md](bench/RESULTS_free_benchmark.md) "
      "(`bench/run_free_benchmark_bench.py`; its target rows are copied into the table below). "
      "The training monitor benchmark: [bench/RESULTS_monitor.md](bench/RESULTS_monitor.md) "
      "(`bench/run_monitor_benchmarks.py`; its target rows are copied into the table below).")
    w("")
    w(f"- Date: {meta['date']} (wall time {meta['wall_min']:.0f} min). Command: "
      f"`{meta['argv']}`; reproduce with `python bench/run_benchmarks.py`.")
    w(f"- Machine: {meta['machine']}. Shared with other jobs (compilers, test suites), so "
      f"every number is a median over processes run interleaved in this one run; load average "
      f"{meta['load_start']} at start, {meta['load_end']} at end.")
    w(f"- Python {platform.python_version()}, torch {meta['torch']} (CPU), "
      f"`torch.set_num_threads(1)` and OMP/MKL_NUM_THREADS=1 in every process.")
    w(f"- Ours: commit {meta['commit']}"
      + (f" plus uncommitted changes in {', '.join(meta['dirty'])}" if meta['dirty'] else "")
      + f", built by `scripts/dev_build.sh bench` (not installed). Original: mindstudio-probe "
        f"1.2.1 in `{shown_path(args.orig_python)}` (own virtual environment, no PYTHONPATH).")
    w("- Workload (`bench/gpt_step.py`): GPT-style decoder (4 layers, d_model 256, 4 heads, "
      "sequence 128, batch 8, vocabulary 1024, explicit attention), cross-entropy, AdamW. One "
      "timed step = `debugger.start(model)` .. `debugger.step()` inclusive (forward, backward, "
      "`optimizer.step()`): wall time by `time.perf_counter`, and CPU time of the whole process "
      "(all threads, the writer's included) by `time.process_time`. Every step is dumped "
      "(`\"step\": []`), to a temporary folder on disk.")
    w(f"- {args.reps} processes per (package, mode); warmup/timed steps per process: ours "
      f"{fmt_steps(OURS_STEPS, args)}; original {fmt_steps(ORIG_STEPS, args)}.")
    w("")

    # ---- targets --------------------------------------------------------------------------
    w("## Targets")
    w("")
    w("Step ratios: median step / median no-probe step of the same package's interpreter, wall "
      "time (the verdict) and process CPU time (less sensitive to other jobs preempting us, "
      "with its own pass/fail in brackets). Overhead = ratio − 1. The dump-off target is "
      "decided by the in-process wrapper measurement (see below): whole-step runs cannot "
      "resolve 3% here.")
    w("")
    table = TargetTable(w)
    row, verdicts = table.row, table.verdicts
    wo, wg = wc.get("ours"), wc.get("original")
    # off: the in-process measurement decides; the step ratios are shown for reference.
    r, rc = ratio(groups, "ours", "off"), ratio(groups, "ours", "off", "cpu_median")
    if wo and wo.get("ratio"):
        row("probe on, dump off: step / no-probe step (ours), from the in-process wrapper cost",
            f"{wo['ratio']:.4f}× ({wo['calls']} wrapped calls/step × {wo['median_ns']:.0f} ns); "
            f"step runs: {fmt(r)}×", f"step runs: {fmt(rc)}×", "≤ 1.03×", wo["ratio"] <= 1.03)
    else:
        row("probe on, dump off: step / no-probe step (ours)", f"{fmt(r)}×", f"{fmt(rc)}×",
            "≤ 1.03×", None if r is None else r <= 1.03)
    for key in ("L1_statistics", "mix_statistics", "L1_md5"):
        r, rc = ratio(groups, "ours", key), ratio(groups, "ours", key, "cpu_median")
        limit = TARGETS[key]
        row(f"{LABELS[key]}: step / no-probe step (ours)", f"{fmt(r)}×",
            f"{fmt(rc)}× ({'n/a' if rc is None else 'pass' if rc <= limit else 'fail'})",
            f"≤ {limit}×", None if r is None else r <= limit)
    # overhead factors
    if wo and wg and wo.get("ms_per_step") is not None and wg.get("ms_per_step") is not None:
        f = wg["median_ns"] / wo["median_ns"] if wo["median_ns"] > 0 else float("inf")
        ro, rg = ratio(groups, "ours", "off"), ratio(groups, "original", "off")
        row("probe on, dump off: overhead ours vs original, in-process wrapper cost",
            f"original/ours = {f:.0f} (ours {wo['median_ns']:.0f} ns, original "
            f"{wg['median_ns'] / 1000:.1f} µs per call; ≈ {wo['ms_per_step']:.2f} vs "
            f"{wg['ms_per_step']:.1f} ms/step); step runs: {factor(ro, rg)}",
            "step runs: " + factor(ratio(groups, 'ours', 'off', 'cpu_median'),
                                   ratio(groups, 'original', 'off', 'cpu_median')),
            f"≥ {OVERHEAD_FACTOR:g}", f >= OVERHEAD_FACTOR)
    for key in ("L1_statistics", "mix_statistics", "L1_md5", "L1_tensor", "L1_tensor_tmpfs"):
        ro, rg = ratio(groups, "ours", key), ratio(groups, "original", key)
        if ro is None or rg is None:
            if key != "L1_tensor_tmpfs":
                row(f"{LABELS[key]}: overhead ours vs original", "n/a", "n/a",
                    f"≥ {OVERHEAD_FACTOR:g}", None)
            continue
        roc = ratio(groups, "ours", key, "cpu_median")
        rgc = ratio(groups, "original", key, "cpu_median")
        fw = factor(ro, rg)
        ok = ro - 1 <= 0 or (rg - 1) / (ro - 1) >= OVERHEAD_FACTOR
        okc = None if roc is None or rgc is None else (
            roc - 1 <= 0 or (rgc - 1) / (roc - 1) >= OVERHEAD_FACTOR)
        row(f"{LABELS[key]}: overhead (ratio − 1) original / ours",
            f"{fw} (ours {(ro - 1) * 100:+.0f}%, original {(rg - 1) * 100:+.0f}%)",
            f"{factor(roc, rgc)} (ours {fmt(roc and (roc - 1) * 100, '+.0f')}%, original "
            f"{fmt(rgc and (rgc - 1) * 100, '+.0f')}%; "
            f"{'n/a' if okc is None else 'pass' if okc else 'fail'})", f"≥ {OVERHEAD_FACTOR:g}", ok)
    # tensor RSS
    n = groups.get(("ours", "none"))
    for key in ("L1_tensor", "L1_tensor_small_bound"):
        t = groups.get(("ours", key))
        if not (t and n):
            continue
        bound = t["writer_mb"] or 512
        base = statistics.median(n["rss"])
        peak = max(t["rss"])
        limit = (base + bound) * (1 + RSS_SLACK)
        name = "L1 tensor peak RSS (ours, worst process)" if key == "L1_tensor" else \
            f"L1 tensor peak RSS, MSPROBE_WRITER_MEMORY_MB={bound} (ours, extra check)"
        row(name, f"{peak:.0f} MiB (no probe {base:.0f} MiB; +{peak - base:.0f} MiB)", "",
            f"≤ ({base:.0f} + {bound}) × {1 + RSS_SLACK:g} = {limit:.0f} MiB", peak <= limit)
    # bandwidth
    if micro is None:
        row("statistics kernel bandwidth / single-core memcpy bandwidth",
            "build/dev-bench/stats_bandwidth_bench is missing", "", f"≥ {BANDWIDTH_TARGET:.0%}",
            None)
    else:
        ratios = [v.get("compute_stats", (None, None))[1] for v in micro["parsed"]]
        ratios = [x for x in ratios if x is not None]
        if ratios:
            med = statistics.median(ratios)
            row("statistics kernel (fp32, no CRC) bandwidth / single-core memcpy bandwidth "
                "(C++ microbenchmark)", f"{med:.0%} (median of {len(ratios)} runs: "
                f"{', '.join(f'{x:.2f}' for x in ratios)})", "", f"≥ {BANDWIDTH_TARGET:.0%}",
                med >= BANDWIDTH_TARGET)
        else:
            row("statistics kernel bandwidth / single-core memcpy bandwidth",
                "could not parse the microbenchmark output", "", f"≥ {BANDWIDTH_TARGET:.0%}",
                None)
    # Benchmarks with their own runs (overflow_check, the HTML report, compare): target rows copied.
    for label, stem in SIDE_RUNS:
        side_path = os.path.join(ROOT, "bench", stem + ".json")
        if not os.path.exists(side_path):
            continue
        with open(side_path) as f:
            side = json.load(f)
        for t in side.get("targets", []):
            row(f"{t['name']} ([{label}]({os.path.join('bench', stem + '.md')}) of "
                f"{side.get('date')})", t["measured"], t["cpu"], t["limit"], t["ok"])
    w("")
    nfail = sum(1 for v in verdicts if v is False)
    w(f"{sum(1 for v in verdicts if v)} passed, {nfail} failed"
      + (f", {sum(1 for v in verdicts if v is None)} not measured" if None in verdicts else "")
      + ".")
    w("")

    # ---- noise ------------------------------------------------------------------------------
    no, ng = groups.get(("ours", "none")), groups.get(("original", "none"))
    if no and ng:
        w("## Noise")
        w("")
        d, dc = no["median"] / ng["median"], None
        if no["cpu_median"] and ng["cpu_median"]:
            dc = no["cpu_median"] / ng["cpu_median"]
        w(f"The two interpreters' no-probe steps (same torch build, same script): ours "
          f"{no['median']:.3f} s, original {ng['median']:.3f} s, ratio {d:.3f} wall"
          + (f", {dc:.3f} CPU time" if dc else "") + " — "
          + ("similar, as expected." if abs(d - 1) <= 0.10 else
             "**more than 10% apart: the machine was busy; read the step ratios with that "
             "resolution**.")
          + f" Per-process medians of the no-probe step ranged "
          f"{min(no['proc_medians']):.3f}–{max(no['proc_medians']):.3f} s (ours) and "
          f"{min(ng['proc_medians']):.3f}–{max(ng['proc_medians']):.3f} s (original), which "
          f"is the resolution of a single process's ratio on this machine.")
        w("")

    # ---- step times -----------------------------------------------------------------------
    w("## Step times")
    w("")
    w("Median over all timed steps of all repetitions. Ratio = median step / median no-probe "
      "step of the same package; in brackets the ratio of the fastest steps (a noise-floor "
      "view); CPU = the same with process CPU time.")
    w("")
    w("| Mode | ours median s | ours ratio (fastest) | ours CPU ratio | original median s | "
      "original ratio (fastest) | original CPU ratio | overhead original / ours (wall, CPU) | "
      "timed steps ours, original |")
    w("|---|---|---|---|---|---|---|---|---|")
    keys = list(MODES) + [k for k in ("L1_tensor_tmpfs", "L1_tensor_small_bound")
                          if ("ours", k) in groups]
    for key in keys:
        go, gg = groups.get(("ours", key)), groups.get(("original", key))
        ro, rg = ratio(groups, "ours", key), ratio(groups, "original", key)
        roc = ratio(groups, "ours", key, "cpu_median")
        rgc = ratio(groups, "original", key, "cpu_median")
        label = key
        if key == "L1_tensor_small_bound":
            label = f"L1_tensor, MSPROBE_WRITER_MEMORY_MB={go['writer_mb']}"
        elif key == "L1_tensor_tmpfs":
            label = "L1_tensor, dump on tmpfs"
        fac = "—" if key == "none" else f"{factor(ro, rg)}, {factor(roc, rgc)}"
        w(f"| {label} | {fmt(go and go['median'])} | {fmt(ro)} "
          f"({fmt(ratio(groups, 'ours', key, 'min'))}) | {fmt(roc)} | "
          f"{fmt(gg and gg['median'])} | {fmt(rg)} ({fmt(ratio(groups, 'original', key, 'min'))})"
          f" | {fmt(rgc)} | {fac} | {go['steps'] if go else 0}, {gg['steps'] if gg else 0} |")
    w("")

    # ---- switched-off wrappers ----------------------------------------------------------------
    if wc:
        w("## Probe on, dump off: cost per wrapped call")
        w("")
        w("A 1–3% effect is below the resolution of whole-step runs on this machine, so "
          "`bench/wrapper_cost.py` measures it in one process: a tiny-tensor API call through "
          "the function saved before `PrecisionDebugger` (level L1) was created against the "
          "wrapper its creation installed, in alternating batches (minimum per variant), once "
          "per package and repetition; extra ns per call (median over repetitions):")
        w("")
        ops = list(next(iter(wc.values()))["per_op"])
        w("| API call | " + " | ".join(ops) + " | median |")
        w("|---|" + "---|" * (len(ops) + 1))
        for pkg, v in wc.items():
            w(f"| {pkg} | " + " | ".join(f"{v['per_op'][k]:.0f}" for k in ops)
              + f" | {v['median_ns']:.0f} |")
        base = next(iter(wc.values()))["before"]
        w("| (unwrapped call) | " + " | ".join(f"{base[k]:.0f}" for k in ops) + " | |")
        w("")
        if wo and wo.get("calls"):
            w(f"One training step makes {wo['calls']} calls through our wrappers (counted with "
              f"`sys.setprofile`; the original wraps the same API list). Estimated off "
              f"overhead per step: ours {wo['ms_per_step']:.2f} ms ({(wo['ratio'] - 1) * 100:.3f}%"
              f" of the no-probe step)"
              + (f", original {wg['ms_per_step']:.1f} ms ({(wg['ratio'] - 1) * 100:.1f}%)"
                 if wg and wg.get("ms_per_step") is not None else "") + ".")
            w("")

    # ---- memory and dump size ---------------------------------------------------------------
    w("## Peak RSS and dump size")
    w("")
    w("Peak RSS = `ru_maxrss` after the process's last step (max over repetitions); dump = "
      "bytes on disk per dumped step.")
    w("")
    w("| Mode | ours peak RSS MiB | original peak RSS MiB | ours dump MiB/step | "
      "original dump MiB/step |")
    w("|---|---|---|---|---|")
    for key in keys:
        go, gg = groups.get(("ours", key)), groups.get(("original", key))
        w(f"| {key} | {fmt(go and max(go['rss']), '.0f')} | {fmt(gg and max(gg['rss']), '.0f')} "
          f"| {fmt(go and statistics.median(go['dump']) / 2**20, '.1f')} | "
          f"{fmt(gg and statistics.median(gg['dump']) / 2**20, '.1f')} |")
    w("")

    # ---- losses -----------------------------------------------------------------------------
    ref, same = None, True
    for g in groups.values():
        for ls in g["losses"]:
            n = min(len(ls), 3)
            if ref is None:
                ref = ls[:n]
            if ls[:n] != ref[:n]:
                same = False
    w("## Training is unchanged")
    w("")
    w("The first steps' losses of every process (both packages, every mode) are "
      + ("bit-identical" if same else "**not** identical (see build/bench-results)") + ": "
      + ", ".join(repr(x) for x in (ref or [])) + ".")
    w("")

    # ---- microbenchmark ---------------------------------------------------------------------
    w("## Statistics kernel microbenchmark (C++)")
    w("")
    if micro is None:
        w("`build/dev-bench/stats_bandwidth_bench` (from `bench/stats_bandwidth_bench.cc`) "
          "was not built, so it was not run.")
    else:
        w(f"`build/dev-bench/stats_bandwidth_bench` (one thread; memcpy and the kernels run "
          f"back to back, so machine noise hits both), run {len(micro['raw'])} times; the run "
          f"with the median compute_stats ratio:")
        w("")
        w("```")
        w(micro["raw"][micro["median_index"]].rstrip())
        w("```")
    w("")
    w("## Notes")
    w("")
    w("- `off`: `PrecisionDebugger` created for L1 and `start()` never called. Both packages "
      "install their API wrappers when the debugger is created, so this is the cost of "
      "wrapped but switched-off APIs.")
    w("- Both packages dump the same records (same API entries in `dump.json`, same tensor "
      "files, same bytes per step); the original's dumping modes are slow, so it runs fewer "
      "timed steps per process (never fewer than 3).")
    w("- L1 tensor writes ~0.9 GB per step. On disk its step time depends on the disk's "
      "writeback speed (it varied from 0.15 to 1.4 GB/s on this machine); the tmpfs rows "
      "(`/dev/shm`) take the disk out and show the probe's own cost.")
    # The device-step section is written by run_device_benchmarks.py: keep it.
    kept = device_section(path)
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n" + (("\n" + kept + "\n") if kept else ""))
    return nfail


DEVICE_BEGIN, DEVICE_END = "<!-- device-step:begin -->", "<!-- device-step:end -->"


def device_section(path):
    """The section between DEVICE_BEGIN and DEVICE_END of an existing report, markers included."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return ""
    a, b = text.find(DEVICE_BEGIN), text.find(DEVICE_END)
    return text[a:b + len(DEVICE_END)] if 0 <= a < b else ""


def fmt_steps(table, args):
    if args.quick:
        return "1/3 (quick)"
    return ", ".join(f"{k} {w}/{s}" for k, (w, s) in table.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="processes per (package, mode)")
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated subset")
    ap.add_argument("--orig-python", default="../orig/bin/python",
                    help="interpreter of the virtual environment with mindstudio-probe 1.2.1")
    ap.add_argument("--no-build", action="store_true",
                    help="use the existing build/dev-bench instead of running dev_build.sh")
    ap.add_argument("--no-orig", action="store_true", help="ours only (no comparison)")
    ap.add_argument("--small-bound", type=int, default=64,
                    help="extra ours-only L1_tensor run per repetition with "
                         "MSPROBE_WRITER_MEMORY_MB set to this (0: skip)")
    ap.add_argument("--no-tmpfs", action="store_true",
                    help="skip the extra L1_tensor runs with the dump on /dev/shm (tmpfs)")
    ap.add_argument("--no-wrapper-cost", dest="wrapper_cost", action="store_false",
                    help="skip bench/wrapper_cost.py (in-process cost of a switched-off wrapper)")
    ap.add_argument("--micro-runs", type=int, default=3,
                    help="runs of the C++ statistics microbenchmark")
    ap.add_argument("--quick", action="store_true", help="1 warmup + 3 timed steps everywhere")
    ap.add_argument("--process-timeout", type=int, default=1800)
    ap.add_argument("--scratch", default=None, help="folder for the temporary dumps")
    ap.add_argument("--results-dir", default=None,
                    help="raw results (default build/bench-results/<timestamp>)")
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    args = ap.parse_args()
    # Steps run in their own work folders: a relative interpreter path is taken from here
    # (abspath, not realpath: a venv's python must stay the link inside the venv).
    args.orig_python = os.path.abspath(args.orig_python)
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            ap.error(f"--modes: unknown mode {m!r}; allowed: {', '.join(MODES)}")
    if "none" not in modes:
        modes.insert(0, "none")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    args.results_dir = args.results_dir or os.path.join(ROOT, "build", "bench-results", stamp)
    if not args.no_orig and not os.path.exists(args.orig_python):
        sys.exit(f"--orig-python: {args.orig_python} does not exist (use --no-orig)")

    t_start = time.perf_counter()
    load_start = " ".join(f"{x:.1f}" for x in os.getloadavg())
    build_dir = os.path.join(ROOT, "build", "dev-bench")
    if args.no_build:
        overlay = os.path.join(build_dir, "pkg")
    else:
        log("building our package (scripts/dev_build.sh bench)")
        overlay = build_ours()
    log(f"ours: PYTHONPATH={overlay}; original: {args.orig_python}; raw results in "
        f"{args.results_dir}")

    runner = Runner(args, overlay)
    pkgs = ["ours"] + ([] if args.no_orig else ["original"])
    tmpfs = None
    if "L1_tensor" in modes and not args.no_tmpfs and os.path.isdir("/dev/shm"):
        st = os.statvfs("/dev/shm")
        if st.f_bavail * st.f_frsize > 12 * 2**30:
            tmpfs = "/dev/shm"
    wrapper_costs = []
    try:
        for rep in range(args.reps):
            order = modes[rep % len(modes):] + modes[:rep % len(modes)]
            for mode in order:
                k = MODES.index(mode)  # package order alternates per mode across repetitions
                for pkg in (pkgs if (rep + k) % 2 == 0 else pkgs[::-1]):
                    runner.run(pkg, mode, rep)
                if mode == "L1_tensor" and args.small_bound:
                    runner.run("ours", mode, rep, key="L1_tensor_small_bound",
                               extra_env={"MSPROBE_WRITER_MEMORY_MB": str(args.small_bound)})
                if mode == "L1_tensor" and tmpfs:
                    for pkg in (pkgs if rep % 2 == 0 else pkgs[::-1]):
                        runner.run(pkg, mode, rep, key="L1_tensor_tmpfs", scratch=tmpfs)
            if args.wrapper_cost:
                for pkg in (pkgs if rep % 2 == 0 else pkgs[::-1]):
                    wc = runner.wrapper_cost(pkg, rep)
                    if wc:
                        wrapper_costs.append(wc)
    finally:
        runner.close()

    micro = None
    if args.micro_runs > 0:
        log("C++ microbenchmark: build/dev-bench/stats_bandwidth_bench")
        outs = run_microbench(build_dir, args.micro_runs)
        if outs is None:
            log("build/dev-bench/stats_bandwidth_bench is missing; skipped")
        else:
            parsed = [parse_microbench(o) for o in outs]
            r = [p.get("compute_stats", (0, 0))[1] or 0 for p in parsed]
            order = sorted(range(len(r)), key=lambda i: r[i])
            micro = {"raw": outs, "parsed": parsed, "median_index": order[len(order) // 2]}
            with open(os.path.join(args.results_dir, "stats_bandwidth_bench.txt"), "w") as f:
                f.write("\n\n".join(outs))

    with open(os.path.join(args.results_dir, "all_results.json"), "w") as f:
        json.dump(runner.results, f, indent=1)
    groups = summarize(runner.results)
    torch_v = next((r["torch"] for r in runner.results), "?")
    meta = {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M %Z").strip(),
        "wall_min": (time.perf_counter() - t_start) / 60,
        "machine": machine_description(),
        "load_start": load_start,
        "load_end": " ".join(f"{x:.1f}" for x in os.getloadavg()),
        "torch": torch_v,
    }
    meta["commit"], meta["dirty"] = git_state()
    meta["argv"] = shown_command("bench/run_benchmarks.py")
    with open(os.path.join(args.results_dir, "wrapper_cost.json"), "w") as f:
        json.dump(wrapper_costs, f, indent=1)
    nfail = write_report(args.out, args, groups, micro, meta, wrapper_costs)
    log(f"wrote {args.out} ({nfail} target(s) failed)")


if __name__ == "__main__":
    main()
