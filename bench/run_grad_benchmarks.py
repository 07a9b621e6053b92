#!/usr/bin/env python
"""grad_probe benchmark: the step-time overhead of grad_level L2 (the target; L0 and L1 shown for
reference, --levels chooses), ours against the original 1.2.1's on the same model, written to
bench/RESULTS_grad.md and RESULTS_grad.json (generated, never edited by hand; BENCHMARKS.md
shows the JSON's target rows).

    python bench/run_grad_benchmarks.py --orig-python /path/to/orig/bin/python   # R=3

Workload: bench/grad_step.py (bench/gpt_step.py's GPT-style decoder, 3.7 M parameters, AdamW,
every step recorded). Ours runs in --ours-python (default: this interpreter, with this tree's
msprobe installed or on PYTHONPATH), the original in its own virtual environment. Each process
runs `grad_step.py --paired`: the probe is on in every other step and off in the others, so that
both see the same load of this shared machine; the ratio is median probe-on step / median
probe-off step, pooled over the processes of a package. Processes interleave as in
run_benchmarks.py (package order alternates). Target: the original's overhead (ratio - 1) at L2
at least 5x ours. Raw per-process JSON and logs:
build/bench-results/grad-<timestamp>/.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run_benchmarks as rb  # noqa: E402  (shared helpers: environment, interleaving, summaries)

GRAD_STEP = os.path.join(HERE, "grad_step.py")
RESULTS_JSON = os.path.join(HERE, "RESULTS_grad.json")
RESULTS_MD = os.path.join(HERE, "RESULTS_grad.md")
OVERHEAD_FACTOR = 5.0
TARGET_LEVEL = "L2"   # the target; --levels L0,L1,L2 adds the others for reference
OURS_STEPS, ORIG_STEPS = (2, 16), (2, 10)   # warmup, timed (half of them probe-on)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--orig-python", required=True)
    ap.add_argument("--ours-python", default=sys.executable)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--levels", default="L0,L1,L2", help="comma-separated grad levels (default L0,L1,L2)")
    ap.add_argument("--process-timeout", type=int, default=1200)
    ap.add_argument("--results-dir", default=os.path.join(
        ROOT, "build", "bench-results", "grad-" + time.strftime("%Y%m%d-%H%M%S")))
    args = ap.parse_args()
    os.makedirs(os.path.join(args.results_dir, "logs"), exist_ok=True)
    started, load_start = time.time(), rb.load_average()
    keys = args.levels.split(",")
    pythons = {"ours": args.ours_python, "original": args.orig_python}
    results = []
    for rep, pkg, key in rb.interleaved(keys, ["ours", "original"], args.reps):
        tag = f"{pkg}-{key}-{rep}"
        out = os.path.join(args.results_dir, tag + ".json")
        work = os.path.join(args.results_dir, "work-" + tag)
        warmup, steps = OURS_STEPS if pkg == "ours" else ORIG_STEPS
        cmd = [pythons[pkg], GRAD_STEP, "--mode", key, "--paired", "--steps", str(steps), "--warmup",
               str(warmup), "--dump-dir", work, "--out", out]
        rb.log(tag)
        r = rb.run_step_process(cmd, rb.clean_env(), tag, out, work, HERE, args, pkg, True)
        if r is not None:
            r.update(pkg=pkg, key=key)
            results.append(r)
    groups = {}
    for r in results:
        g = groups.setdefault((r["pkg"], r["key"]), {"on": [], "off": [], "on_cpu": [], "off_cpu": []})
        g["on"] += r["step_times_s"]
        g["off"] += r["off_times_s"]
        g["on_cpu"] += r["step_cpu_s"]
        g["off_cpu"] += r["off_cpu_s"]

    def ratio(pkg, key, kind=""):
        g = groups.get((pkg, key))
        if not g or not g["on" + kind] or not g["off" + kind]:
            return None
        return statistics.median(g["on" + kind]) / statistics.median(g["off" + kind])

    targets, lines = [], []
    for key in keys:
        ro, rg = ratio("ours", key), ratio("original", key)
        co, cg = ratio("ours", key, "_cpu"), ratio("original", key, "_cpu")
        ok = None if ro is None or rg is None else (rg - 1) >= OVERHEAD_FACTOR * max(ro - 1, 1e-9)
        measured = (f"{rb.factor(ro, rg)} (ours {(ro - 1) * 100:+.1f}%, original {(rg - 1) * 100:+.1f}%; "
                    "probe on/off in alternate steps)" if ok is not None else "n/a")
        cpu = (f"{rb.factor(co, cg)} (ours {(co - 1) * 100:+.1f}%, original {(cg - 1) * 100:+.1f}%)"
               if co and cg else "n/a")
        target = key == TARGET_LEVEL   # the other levels are shown for reference
        targets.append({"name": f"grad_probe {key}: overhead (ratio − 1) original / ours"
                        + ("" if target else " (for reference)"), "measured": measured, "cpu": cpu,
                        "limit": f"≥ {OVERHEAD_FACTOR:.0f}" if target else "—", "ok": ok if target else None})
    meta = rb.run_meta("bench/run_grad_benchmarks.py", started, load_start)
    with open(RESULTS_JSON, "w") as f:
        json.dump({"date": meta["date"], "commit": meta["commit"], "targets": targets,
                   "ratios": {f"{p}/{k}": ratio(p, k) for (p, k) in groups}}, f, indent=1)
    lines += ["# grad_probe benchmark", "",
              "Generated by `bench/run_grad_benchmarks.py`; do not edit by hand, rerun instead.", ""]
    lines += rb.date_and_machine_lines(meta)
    lines += [f"- Ours: commit {meta['commit']}{' (uncommitted changes)' if meta['dirty'] else ''}, "
              f"`{rb.shown_path(args.ours_python)}`; original: mindstudio-probe 1.2.1 in "
              f"`{rb.shown_path(args.orig_python)}`.",
              "- Workload (`bench/grad_step.py`): GPT-style decoder of `bench/gpt_step.py` (3.7 M parameters), "
              "AdamW, task grad_probe with every parameter and every step recorded, bounds [-1, 0, 1], "
              "one thread. Timed step: forward, backward, `optimizer.step()` (where the pre-step hook runs); "
              "the probe is on in every other step (`--paired`).",
              f"- {args.reps} processes per (package, mode); warmup/timed steps per process: ours "
              f"{OURS_STEPS[0]}/{OURS_STEPS[1]}, original {ORIG_STEPS[0]}/{ORIG_STEPS[1]}.", "",
              "| Target | Measured (wall) | CPU time | Limit | Result |", "|---|---|---|---|---|"]
    for t in targets:
        res = "n/a" if t["ok"] is None else ("PASS" if t["ok"] else "**FAIL**")
        lines.append(f"| {t['name']} | {t['measured']} | {t['cpu']} | {t['limit']} | {res} |")
    lines += ["", "| Mode | ours on / off median s | ours ratio | original on / off median s | original ratio "
              "| probe-on steps ours, original |", "|---|---|---|---|---|---|"]

    def cells(pkg, key):
        g = groups.get((pkg, key))
        if not g:
            return "n/a", "n/a"
        return (f"{statistics.median(g['on']):.3f} / {statistics.median(g['off']):.3f}",
                rb.fmt(ratio(pkg, key)))
    for key in keys:
        (oc, orr), (gc, grr) = cells("ours", key), cells("original", key)
        n_o = len(groups.get(("ours", key), {}).get("on", []))
        n_g = len(groups.get(("original", key), {}).get("on", []))
        lines.append(f"| {key} | {oc} | {orr} | {gc} | {grr} | {n_o}, {n_g} |")
    with open(RESULTS_MD, "w") as f:
        f.write("\n".join(lines) + "\n")
    rb.log(f"wrote {rb.shown_path(RESULTS_MD)} and {rb.shown_path(RESULTS_JSON)}")


if __name__ == "__main__":
    main()
