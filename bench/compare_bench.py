#!/usr/bin/env python
"""compare benchmark: `msprobe -f pytorch compare` of ours against the original msprobe 1.2.1,
side by side on the same synthetic dumps, written to bench/RESULTS_compare.md and
RESULTS_compare.json (generated, never edited by hand; BENCHMARKS.md shows the JSON's rows).

    python bench/compare_bench.py                    # full size, R=3 (~10-20 min on 2 cores)
    python bench/compare_bench.py --quick            # smoke run: small dumps, R=1

Two cases, each a pair of PyTorch dumps (dump_path/step0/rank/{dump.json, stack.json,
construct.json, dump_tensor_data/}) generated in a temporary folder, never checked in:

- tensor: task "tensor", 1.0 GiB of float32 tensors per side written with torch.save (what
  1.2.1 writes and reads with torch.load): Functional.linear calls whose input and output are
  16 MiB each, plus a small bias; bench = npu * (1 + 1e-6 * noise);
- statistics: task "statistics", 200k L1 API entries (two inputs and one output, with dtype,
  shape, Max, Min, Mean, Norm), bench = npu's statistics slightly perturbed.

Each compare is one whole command in a fresh process, as users run it: ours
`python -m msprobe.cli -f pytorch compare -i compare.json -o OUT` with this tree's build on
PYTHONPATH (never installed), also with `--no-report` (no HTML report); the original
`ORIG_PYTHON -m msprobe.msprobe -f pytorch compare ...` in its own virtual environment. Before
every run the dump files are read once (warm page cache). Runs interleave (the tool order
rotates per repetition); the verdict is the median wall time. Peak memory: the compare's
ru_maxrss (wait4: its largest process) and the sum of RSS over its process tree, sampled every
50 ms or less often (never more than a tenth of a core; 1.2.1 computes in multiprocessing pool
workers). Raw results and logs:
build/bench-results/compare-<timestamp>/.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run_benchmarks as rb  # noqa: E402  (shared helpers: build, environment, paths)

TARGETS = {"tensor": 10.0, "statistics": 30.0}      # original wall time / ours
TOOLS = ("ours", "ours --no-report", "original")
STAT_APIS = ("Functional.linear", "Torch.matmul", "Tensor.__add__", "Functional.gelu")
STACK = ["File {site}/torch/nn/modules/module.py, line 1778, in _wrapped_call_impl, \n return "
         "self._call_impl(*args, **kwargs)",
         "File train.py, line 42, in forward, \n x = self.block(x)"]


# ---- synthetic dumps ---------------------------------------------------------------------

def _rank_dir(root, side):
    d = os.path.join(root, side, "step0", "rank")
    os.makedirs(d, exist_ok=True)
    return d


def _write_side_files(rank_dir, task, data):
    """dump.json in 1.2.1's layout (json.dump, indent=1) and the stack.json/construct.json that
    accompany it."""
    doc = {"task": task, "level": "L1", "framework": "pytorch",
           "dump_data_dir": os.path.join(rank_dir, "dump_tensor_data") if task == "tensor" else None,
           "data": data}
    with open(os.path.join(rank_dir, "dump.json"), "w") as f:
        json.dump(doc, f, indent=1)
    with open(os.path.join(rank_dir, "stack.json"), "w") as f:
        json.dump({name: STACK for name in data}, f, indent=1)
    with open(os.path.join(rank_dir, "construct.json"), "w") as f:
        f.write("{}")


def _tensor_record(t, data_name=None, requires_grad=False):
    import torch
    rec = {"type": "torch.Tensor", "dtype": str(t.dtype), "shape": list(t.shape),
           "Max": t.max().item(), "Min": t.min().item(), "Mean": t.mean().item(),
           "Norm": torch.linalg.vector_norm(t).item(), "requires_grad": requires_grad}
    if data_name:
        rec["data_name"] = data_name
    return rec


def make_tensor_dumps(root, calls, rows, cols):
    """`calls` Functional.linear entries per side: input [rows, cols], bias [cols], output
    [rows, cols], float32, each saved with torch.save as 1.2.1 does. Returns the bytes of tensor
    data per side."""
    import torch
    gen = torch.Generator().manual_seed(0)
    npu_dir, bench_dir = _rank_dir(root, "npu"), _rank_dir(root, "bench")
    data = {"npu": {}, "bench": {}}
    total = 0
    for i in range(calls):
        name = f"Functional.linear.{i}.forward"
        for side in data:
            data[side][name] = {"input_args": [], "input_kwargs": {}, "output": []}
        for slot, shape in (("input.0", (rows, cols)), ("input.1", (cols,)), ("output.0", (rows, cols))):
            npu = torch.randn(shape, generator=gen)
            bench = npu * (1 + 1e-6 * torch.randn(shape, generator=gen))
            file_name = f"{name}.{slot}.pt"
            for side, t, d in (("npu", npu, npu_dir), ("bench", bench, bench_dir)):
                tensor_dir = os.path.join(d, "dump_tensor_data")
                os.makedirs(tensor_dir, exist_ok=True)
                torch.save(t, os.path.join(tensor_dir, file_name))
                rec = _tensor_record(t, file_name, requires_grad=slot == "input.1")
                key = "output" if slot.startswith("output") else "input_args"
                data[side][name][key].append(rec)
            total += npu.numel() * npu.element_size()
            del npu, bench
    for side, d in (("npu", npu_dir), ("bench", bench_dir)):
        _write_side_files(d, "tensor", data[side])
    return total


def make_statistics_dumps(root, entries):
    """`entries` L1 API entries per side, each with two float32 inputs and one output; bench's
    statistics are npu's times (1 + 1e-4 noise)."""
    import random
    rng = random.Random(1)
    data = {"npu": {}, "bench": {}}

    def stats():
        a, b = sorted((rng.uniform(-3, 3), rng.uniform(-3, 3)))
        return {"Max": b, "Min": a, "Mean": (a + b) / 4, "Norm": rng.uniform(1, 300)}

    def perturbed(s):
        return {k: v * (1 + 1e-4 * rng.gauss(0, 1)) for k, v in s.items()}

    for i in range(entries):
        name = f"{STAT_APIS[i % 4]}.{i // 4}.forward"
        shapes = ([32, 4096], [4096, 4096], [32, 4096])
        recs = {"npu": [], "bench": []}
        for j, shape in enumerate(shapes):
            s = stats()
            for side, vals in (("npu", s), ("bench", perturbed(s))):
                recs[side].append({"type": "torch.Tensor", "dtype": "torch.float32", "shape": shape,
                                   **vals, "requires_grad": j == 1})
        for side in data:
            data[side][name] = {"input_args": recs[side][:2], "input_kwargs": {},
                                "output": recs[side][2:]}
    for side in data:
        _write_side_files(_rank_dir(root, side), "statistics", data[side])
        data[side] = None


def generate(root, spec):
    """Writes a case's dumps in a child process (returns its result: the tensor bytes per side),
    so that this process stays small: a child forked from a large process inherits its peak RSS
    in ru_maxrss."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--generate", root] + spec,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def generate_main(argv):
    root, case = argv[0], argv[1]
    if case == "tensor":
        print(json.dumps(make_tensor_dumps(root, int(argv[2]), int(argv[3]), int(argv[4]))))
    else:
        make_statistics_dumps(root, int(argv[2]))
        print("0")


def write_compare_json(root):
    path = os.path.join(root, "compare.json")
    with open(path, "w") as f:
        json.dump({"npu_path": os.path.join(root, "npu", "step0", "rank", "dump.json"),
                   "bench_path": os.path.join(root, "bench", "step0", "rank", "dump.json"),
                   "is_print_compare_log": True}, f, indent=1)
    return path


def warm(root):
    """Reads every file under root once, so that each run starts with a warm page cache."""
    buf = bytearray(1 << 20)
    for dirpath, _, files in os.walk(root):
        for name in files:
            with open(os.path.join(dirpath, name), "rb", buffering=0) as f:
                while f.readinto(buf):
                    pass


# ---- one measured process ----------------------------------------------------------------

def _tree_pss_bytes(pid):
    """Sum of the proportional set size (Pss: shared pages divided among their users, so forked
    workers sharing their parent's pages are not counted twice) over pid and its descendants;
    0 once it has exited."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            pass
    return total


def measure(cmd, env, log_path, cwd, timeout):
    """Runs cmd; returns wall s, CPU s (user+sys of the process tree), ru_maxrss bytes, the
    sampled peak Pss of the process tree in bytes and the exit status."""
    peak = [0]
    with open(log_path, "w") as logf:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT, cwd=cwd)
        done = threading.Event()

        def sample():
            # Reading smaps_rollup of a process of gigabytes walks its page tables: at a fixed
            # 50 ms it took 40% of a core from the measured run. The pause is at least ten times
            # the last reading's cost, so the sampler stays under a tenth of one core.
            pause = 0.05
            while not done.wait(pause):
                t = time.perf_counter()
                peak[0] = max(peak[0], _tree_pss_bytes(proc.pid))
                pause = max(0.05, 10 * (time.perf_counter() - t))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, ru = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
            done.set()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        sampler.join()
    return {"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "maxrss": ru.ru_maxrss * 1024,
            "tree_pss": peak[0], "rc": proc.returncode}


def output_summary(out_dir):
    """{kind: bytes} of what a compare wrote (xlsx, html, divergence/advisor json/txt)."""
    sizes = {}
    for name in sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else ():
        kind = name.rsplit(".", 1)[-1]
        if name.startswith("compare_report"):
            kind = "html report"
        elif name.startswith("divergence"):
            kind = "divergence json"
        elif name.startswith("advisor"):
            kind = "advisor"
        sizes[kind] = sizes.get(kind, 0) + os.path.getsize(os.path.join(out_dir, name))
    return sizes


class Runner:
    def __init__(self, args, overlay):
        self.args, self.overlay = args, overlay
        os.makedirs(os.path.join(args.results_dir, "logs"), exist_ok=True)
        self.results = []

    def command(self, tool, compare_json, out_dir):
        if tool == "original":
            return [self.args.orig_python, "-m", "msprobe.msprobe", "-f", "pytorch", "compare",
                    "-i", compare_json, "-o", out_dir]
        return [sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "compare", "-i", compare_json,
                "-o", out_dir] + (["--no-report"] if tool.endswith("--no-report") else [])

    def run(self, case, tool, rep, root, compare_json):
        env = rb.clean_env(None, None if tool == "original" else self.overlay)
        for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):   # compare runs as users run it
            env.pop(k, None)
        tag = f"{case}_r{rep}_{tool.replace(' --', '_').replace('-', '_')}"
        out_dir = os.path.join(root, "out_" + tag)
        os.makedirs(out_dir)
        warm(os.path.join(root, "npu"))
        warm(os.path.join(root, "bench"))
        r = measure(self.command(tool, compare_json, out_dir), env,
                    os.path.join(self.args.results_dir, "logs", tag + ".log"), root,
                    self.args.process_timeout)
        r.update(case=case, tool=tool, rep=rep, outputs=output_summary(out_dir))
        shutil.rmtree(out_dir, ignore_errors=True)
        if r["rc"] != 0 or "xlsx" not in r["outputs"]:
            rb.log(f"FAILED {tag} (exit {r['rc']}, outputs {r['outputs']}); see logs/{tag}.log")
            r["failed"] = True
        self.results.append(r)
        rb.log(f"{tag:42s} wall {r['wall_s']:8.2f} s  cpu {r['cpu_s']:8.2f} s  maxrss "
               f"{r['maxrss'] / 2**20:7.0f} MiB  tree Pss {r['tree_pss'] / 2**20:7.0f} MiB")
        return r


# ---- summary and report --------------------------------------------------------------------

def summarize(results, case, tool):
    rs = [r for r in results if r["case"] == case and r["tool"] == tool and not r.get("failed")]
    if not rs:
        return None
    return {"runs": len(rs), "wall_s": statistics.median(r["wall_s"] for r in rs),
            "walls": [round(r["wall_s"], 3) for r in rs],
            "cpu_s": statistics.median(r["cpu_s"] for r in rs),
            "maxrss_mib": max(r["maxrss"] for r in rs) / 2**20,
            "tree_pss_mib": max(r["tree_pss"] for r in rs) / 2**20,
            "outputs_mib": {k: v / 2**20 for k, v in rs[0]["outputs"].items()}}


def case_rows(results, case, work):
    """The table rows of one case: per tool median wall, throughput, peak RSS, ratio."""
    rows = {t: summarize(results, case, t) for t in TOOLS}
    orig = rows.get("original")
    for tool, s in rows.items():
        if not s:
            continue
        s["throughput"] = work / s["wall_s"]
        s["ratio"] = orig["wall_s"] / s["wall_s"] if orig and tool != "original" else None
        s["cpu_ratio"] = orig["cpu_s"] / s["cpu_s"] if orig and tool != "original" else None
    return rows


def write_report(path, args, meta, cases):
    L = []
    w = L.append
    w("# compare benchmark: ours vs the original msprobe 1.2.1")
    w("")
    w("Generated by `bench/compare_bench.py` (see [README.md](README.md)); do not edit by hand, "
      "rerun instead.")
    w("")
    w(f"- Date: {meta['date']} (wall time {meta['wall_min']:.0f} min). Command: `{meta['argv']}`.")
    w(f"- Machine: {meta['machine']}. Shared with other jobs, so every number is a median over "
      f"runs interleaved in this one run (tool order rotating per repetition); load average "
      f"{meta['load_start']} at start, {meta['load_end']} at end.")
    w(f"- Python {platform.python_version()}, torch {meta['torch']} (CPU). Ours: commit "
      f"{meta['commit']}" + (f" plus uncommitted changes in {', '.join(meta['dirty'])}"
                              if meta['dirty'] else "")
      + f", build `{meta['overlay']}` on PYTHONPATH (not installed). Original: mindstudio-probe "
        f"1.2.1 in `{rb.shown_path(args.orig_python)}` (own virtual environment, no PYTHONPATH).")
    w("- Commands, each a fresh process: ours `python -m msprobe.cli -f pytorch compare -i "
      "compare.json -o OUT` (writes the xlsx, advisor, divergence json and HTML report; "
      "`--no-report`: no HTML report); original `python -m msprobe.msprobe -f pytorch compare "
      "-i compare.json -o OUT` (xlsx and advisor). Default threads and processes (no "
      "OMP_NUM_THREADS). Every dump file is read once before each run (warm page cache).")
    w("- Memory, maximum over runs: peak RSS = the compare's `ru_maxrss` (from wait4: the peak "
      "of its largest single process, exact); tree Pss = the proportional set size summed over "
      "the process tree (1.2.1 computes in multiprocessing pool workers forked from the main "
      "process; Pss counts their shared pages once), sampled every 50 ms or less often (the "
      "sampler takes at most a tenth of one core), so a short peak can "
      "be missed. Mapped tensor files count in both. Throughput: tensor mode, bytes of tensor "
      "data of both sides / median wall; statistics mode, dump.json entries per side / median "
      "wall.")
    w("")
    for case, c in cases.items():
        w(f"## {c['title']}")
        w("")
        w(c["description"])
        w("")
        w("| Tool | runs | median wall s (all runs) | CPU s | throughput | peak RSS MiB | "
          "tree Pss MiB | original / ours (wall) | original / ours (CPU) | target | met |")
        w("|---|---|---|---|---|---|---|---|---|---|---|")
        for tool, s in c["rows"].items():
            if not s:
                w(f"| {tool} | 0 | n/a | | | | | | | | |")
                continue
            ratio = "—" if s["ratio"] is None else f"{s['ratio']:.1f}×"
            cpu_ratio = "—" if s["cpu_ratio"] is None else f"{s['cpu_ratio']:.1f}×"
            target = "—" if tool == "original" else f"≥ {TARGETS[case]:g}×"
            met = "—" if s["ratio"] is None else ("yes" if s["ratio"] >= TARGETS[case] else "**no**")
            w(f"| {tool} | {s['runs']} | {s['wall_s']:.2f} ({', '.join(f'{x:.2f}' for x in s['walls'])}) "
              f"| {s['cpu_s']:.1f} | {c['fmt_tp'](s['throughput'])} | {s['maxrss_mib']:.0f} | "
              f"{s['tree_pss_mib']:.0f} | {ratio} | {cpu_ratio} | {target} | {met} |")
        w("")
        outs = "; ".join(f"{tool}: " + ", ".join(f"{k} {v:.1f} MiB" for k, v in s["outputs_mib"].items())
                         for tool, s in c["rows"].items() if s)
        w(f"Output files per run: {outs}.")
        w("")
    w("## Notes")
    w("")
    for note in meta["notes"]:
        w(f"- {note}")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def targets_json(cases):
    """The verdict rows copied into BENCHMARKS.md by run_benchmarks.py."""
    rows = []
    for case, c in cases.items():
        ours, orig = c["rows"].get("ours"), c["rows"].get("original")
        if not (ours and orig):
            continue
        nr = c["rows"].get("ours --no-report")
        rows.append({
            "name": f"compare, {c['short']}: wall time original / ours (whole command, warm cache)",
            "measured": f"{ours['ratio']:.1f} (ours {ours['wall_s']:.2f} s, "
                        f"{c['fmt_tp'](ours['throughput'])}; original {orig['wall_s']:.1f} s, "
                        f"{c['fmt_tp'](orig['throughput'])}"
                        + (f"; ours --no-report {nr['wall_s']:.2f} s" if nr else "") + ")",
            "cpu": f"{ours['cpu_ratio']:.1f}",
            "limit": f"≥ {TARGETS[case]:g}", "ok": ours["ratio"] >= TARGETS[case]})
        rows.append({
            "name": f"compare, {c['short']}: peak RSS (for reference)",
            "measured": f"peak RSS ours {ours['maxrss_mib']:.0f} MiB, original "
                        f"{orig['maxrss_mib']:.0f} MiB (largest process); tree Pss ours "
                        f"{ours['tree_pss_mib']:.0f} MiB, original {orig['tree_pss_mib']:.0f} MiB",
            "cpu": "", "limit": c["rss_limit"], "ok": None})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="runs per (case, tool), interleaved")
    ap.add_argument("--orig-budget-s", type=float, default=300,
                    help="after the original's first run of a case took longer than this, its "
                         "further repetitions of that case are skipped (R=1 for the original)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 64 MiB of tensors and 5000 entries per side, R=1")
    ap.add_argument("--tensor-calls", type=int, default=32,
                    help="Functional.linear entries per side (two 16 MiB tensors each)")
    ap.add_argument("--tensor-shape", default="1024x4096", help="rows x cols of the big tensors")
    ap.add_argument("--stats-entries", type=int, default=200000)
    ap.add_argument("--cases", default="tensor,statistics")
    ap.add_argument("--orig-python", default=os.path.join(ROOT, "..", "orig121", "bin", "python"),
                    help="interpreter of a venv with torch 2.13.0 and mindstudio-probe 1.2.1")
    ap.add_argument("--no-orig", action="store_true")
    ap.add_argument("--overlay", default=None,
                    help="PYTHONPATH of an existing dev build (skips scripts/dev_build.sh bench)")
    ap.add_argument("--scratch", default=None, help="folder for the temporary dumps")
    ap.add_argument("--process-timeout", type=int, default=3600)
    ap.add_argument("--out", default=None,
                    help="report path (default bench/RESULTS_compare.md and .json beside it; "
                         "with --quick, the raw results folder)")
    args = ap.parse_args()
    args.orig_python = os.path.normpath(args.orig_python)
    if args.quick:
        args.reps, args.tensor_calls, args.tensor_shape, args.stats_entries = 1, 4, "512x2048", 5000
    cases_wanted = [c for c in args.cases.split(",") if c]
    for c in cases_wanted:
        if c not in TARGETS:
            ap.error(f"--cases: unknown case {c!r}; allowed: {', '.join(TARGETS)}")
    if not args.no_orig and not os.path.exists(args.orig_python):
        sys.exit(f"--orig-python: {args.orig_python} does not exist (use --no-orig)")
    rows_, cols_ = (int(x) for x in args.tensor_shape.lower().split("x"))
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    args.results_dir = os.path.join(ROOT, "build", "bench-results", f"compare-{stamp}")
    if args.out is None:
        args.out = os.path.join(args.results_dir if args.quick else HERE, "RESULTS_compare.md")
    results_json = os.path.splitext(args.out)[0] + ".json"
    overlay = os.path.abspath(args.overlay) if args.overlay else rb.build_ours()
    tools = [t for t in TOOLS if not (args.no_orig and t == "original")]
    imported = subprocess.run([sys.executable, "-c", "import msprobe; print(msprobe.__file__)"],
                              env=rb.clean_env(None, overlay), cwd=tempfile.gettempdir(),
                              stdout=subprocess.PIPE, text=True).stdout.strip()
    if not imported.startswith(overlay + os.sep):
        sys.exit(f"ours: the interpreter imports msprobe from {imported}, not from the build {overlay}")
    load_start = " ".join(f"{x:.1f}" for x in os.getloadavg())
    t0 = time.time()
    runner = Runner(args, overlay)
    scratch = tempfile.mkdtemp(prefix="msprobe_cmpbench_", dir=args.scratch)
    cases = {}
    notes = []
    try:
        for case in cases_wanted:
            root = os.path.join(scratch, case)
            g0 = time.time()
            if case == "tensor":
                data_bytes = generate(root, ["tensor", str(args.tensor_calls), str(rows_), str(cols_)])
                work = 2 * data_bytes
                json_bytes = os.path.getsize(os.path.join(root, "npu", "step0", "rank", "dump.json"))
                cases[case] = {
                    "title": "Tensor mode", "short": f"tensor mode, {2 * data_bytes / 2**30:.2f} GiB",
                    "work": work, "fmt_tp": lambda x: f"{x / 1e9:.2f} GB/s",
                    "rss_limit": "ours: the largest tensor pair plus the result table",
                    "description": (
                        f"Task tensor, {args.tensor_calls} `Functional.linear` entries per side, "
                        f"each with an input and an output of [{rows_}, {cols_}] float32 "
                        f"({rows_ * cols_ * 4 / 2**20:.0f} MiB) and a bias [{cols_}]: "
                        f"{3 * args.tensor_calls} `.pt` files (torch.save) and "
                        f"{data_bytes / 2**30:.2f} GiB of tensor data per side, "
                        f"{2 * data_bytes / 1e9:.2f} GB both sides (the throughput's numerator); "
                        f"dump.json {json_bytes / 2**10:.0f} KiB. bench = npu × (1 + 1e-6 · N(0,1)).")}
            else:
                generate(root, ["statistics", str(args.stats_entries)])
                json_bytes = os.path.getsize(os.path.join(root, "npu", "step0", "rank", "dump.json"))
                cases[case] = {
                    "title": "Statistics mode", "short": f"statistics mode, {args.stats_entries} entries",
                    "work": args.stats_entries, "fmt_tp": lambda x: f"{x:,.0f} entries/s",
                    "rss_limit": "—",
                    "description": (
                        f"Task statistics, {args.stats_entries} L1 API entries per side "
                        f"({', '.join(STAT_APIS)} in turn), each with two inputs and one output "
                        f"(dtype, shape, Max, Min, Mean, Norm): {3 * args.stats_entries} compared "
                        f"rows; dump.json {json_bytes / 2**20:.0f} MiB per side, stack.json beside "
                        f"it. bench = npu's statistics × (1 + 1e-4 · N(0,1)).")}
            rb.log(f"{case}: generated in {time.time() - g0:.0f} s")
            compare_json = write_compare_json(root)
            orig_skip = False
            for rep in range(args.reps):
                k = rep % len(tools)
                for tool in tools[k:] + tools[:k]:
                    if tool == "original" and orig_skip:
                        continue
                    r = runner.run(case, tool, rep, root, compare_json)
                    if tool == "original" and r["wall_s"] > args.orig_budget_s and rep + 1 < args.reps:
                        orig_skip = True
                        notes.append(f"{case}: the original's first run took {r['wall_s']:.0f} s "
                                     f"(> --orig-budget-s {args.orig_budget_s:g}), so it ran once; "
                                     f"ours ran {args.reps} times.")
            cases[case]["rows"] = case_rows(runner.results, case, cases[case]["work"])
            shutil.rmtree(root, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    commit, dirty = rb.git_state()
    torch_version = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                                   stdout=subprocess.PIPE, text=True).stdout.strip() or "?"
    notes += [
        "The generated dumps are deleted after the run; rerun to reproduce (fixed seeds).",
        "Wall time is the verdict; CPU time (user + system of the whole process tree) is shown "
        "because it is much less sensitive to other jobs on a shared machine.",
    ]
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "wall_min": (time.time() - t0) / 60, "argv": rb.shown_command("bench/compare_bench.py"),
            "machine": rb.machine_description(), "load_start": load_start,
            "load_end": " ".join(f"{x:.1f}" for x in os.getloadavg()),
            "commit": commit, "dirty": dirty, "torch": torch_version,
            "overlay": rb.shown_path(overlay), "notes": notes}
    with open(os.path.join(args.results_dir, "all_results.json"), "w") as f:
        json.dump(runner.results, f, indent=1)
    write_report(args.out, args, meta, cases)
    with open(results_json, "w") as f:
        json.dump({"date": meta["date"], "commit": commit, "load": [load_start, meta["load_end"]],
                   "quick": args.quick, "targets": targets_json(cases),
                   "cases": {case: {"description": c["description"], "work": c["work"],
                                    "rows": c["rows"]} for case, c in cases.items()}},
                  f, indent=1)
        f.write("\n")
    rb.log(f"wrote {rb.shown_path(args.out)} and {rb.shown_path(results_json)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--generate"]:
        generate_main(sys.argv[2:])
    else:
        main()
