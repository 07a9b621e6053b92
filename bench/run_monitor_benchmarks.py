#!/usr/bin/env python
"""Training monitor (TrainerMon) benchmark: the step-time overhead of weight-gradient monitoring
(wg), of activation monitoring (xy), of mg_direction (mg) and of collective monitoring (cc), ours
against the original 1.2.1's on the same model, written to bench/RESULTS_monitor.md and
RESULTS_monitor.json (generated, never edited by hand; BENCHMARKS.md shows the JSON's target rows).

    python bench/run_monitor_benchmarks.py --orig-python ../orig121/bin/python   # R=3

Workload: bench/monitor_step.py (bench/gpt_step.py's GPT-style decoder, 3.7 M parameters, AdamW,
every step monitored, ops min/max/norm/mean, format csv). Each process runs monitor on and off in
alternate steps, so that both see the same load of this shared machine; the ratio is median
monitor-on step / median monitor-off step, pooled over the processes of a package. Processes
interleave as in run_benchmarks.py. Targets (issue 21): wg overhead at most 2% of step time (ours);
xy overhead (ratio - 1) of the original at least 3x ours; mg is measured, without a target; cc
(cc_distribution, no target in the issue) reported with the xy factor as its limit. Raw
per-process JSON and logs: build/bench-results/monitor-<timestamp>/.
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

MONITOR_STEP = os.path.join(HERE, "monitor_step.py")
RESULTS_JSON = os.path.join(HERE, "RESULTS_monitor.json")
RESULTS_MD = os.path.join(HERE, "RESULTS_monitor.md")
WG_LIMIT = 0.02        # ours: at most 2% of the step
XY_FACTOR = 3.0        # original's xy overhead / ours
OURS_STEPS, ORIG_STEPS = (2, 40), (2, 40)   # warmup, timed (half of them monitor-on)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--orig-python", required=True)
    ap.add_argument("--ours-python", default=sys.executable)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--modes", default="wg,xy,mg,cc")
    ap.add_argument("--process-timeout", type=int, default=1200)
    ap.add_argument("--results-dir", default=os.path.join(
        ROOT, "build", "bench-results", "monitor-" + time.strftime("%Y%m%d-%H%M%S")))
    args = ap.parse_args()
    os.makedirs(os.path.join(args.results_dir, "logs"), exist_ok=True)
    started, load_start = time.time(), rb.load_average()
    keys = args.modes.split(",")
    # Absolute: the step processes run in bench/.
    pythons = {"ours": os.path.abspath(args.ours_python), "original": os.path.abspath(args.orig_python)}
    results = []
    for rep, pkg, key in rb.interleaved(keys, ["ours", "original"], args.reps):
        tag = f"{pkg}-{key}-{rep}"
        out = os.path.join(args.results_dir, tag + ".json")
        work = os.path.join(args.results_dir, "work-" + tag)
        warmup, steps = OURS_STEPS if pkg == "ours" else ORIG_STEPS
        cmd = [pythons[pkg], MONITOR_STEP, "--mode", key, "--steps", str(steps), "--warmup", str(warmup),
               "--dump-dir", work, "--out", out]
        rb.log(tag)
        r = rb.run_step_process(cmd, rb.clean_env(), tag, out, work, HERE, args, pkg, True)
        if r is not None:
            r.update(pkg=pkg, key=key)
            results.append(r)
    groups = rb.paired_groups(results)

    def ratio(pkg, key, kind=""):
        return rb.paired_ratio(groups, pkg, key, kind)

    def shares(key, kind=""):
        ro, rg = ratio("ours", key, kind), ratio("original", key, kind)
        if ro is None or rg is None:
            return None, None, "n/a"
        return ro, rg, f"ours {(ro - 1) * 100:+.1f}%, original {(rg - 1) * 100:+.1f}%"

    targets = []
    if "wg" in keys:
        ro, rg, text = shares("wg")
        _, _, cpu = shares("wg", "_cpu")
        ok = None if ro is None else ro - 1 <= WG_LIMIT
        targets.append({"name": "monitor wg_distribution: overhead (ratio − 1) ours",
                        "measured": (f"{(ro - 1) * 100:+.1f}% ({text}; monitor on/off in alternate steps)"
                                     if ro else "n/a"),
                        "cpu": cpu, "limit": f"≤ {WG_LIMIT * 100:.0f}%", "ok": ok})
    for key, field in (("xy", "xy_distribution"), ("cc", "cc_distribution")):
        if key not in keys:
            continue
        ro, rg, text = shares(key)
        co, cg, cpu = shares(key, "_cpu")
        ok = None if ro is None else (rg - 1) >= XY_FACTOR * max(ro - 1, 1e-9)
        targets.append({"name": f"monitor {field}: overhead (ratio − 1) original / ours",
                        "measured": f"{rb.factor(ro, rg)} ({text}; monitor on/off in alternate steps)"
                        if ro else "n/a",
                        "cpu": f"{rb.factor(co, cg)} ({cpu})" if co else "n/a",
                        "limit": f"≥ {XY_FACTOR:.0f}", "ok": ok})
    if "mg" in keys:
        ro, rg, text = shares("mg")
        co, cg, cpu = shares("mg", "_cpu")
        targets.append({"name": "monitor mg_direction: overhead (ratio − 1) original / ours",
                        "measured": f"{rb.factor(ro, rg)} ({text}; monitor on/off in alternate steps)"
                        if ro else "n/a",
                        "cpu": f"{rb.factor(co, cg)} ({cpu})" if co else "n/a", "limit": "—", "ok": None})
    meta = rb.run_meta("bench/run_monitor_benchmarks.py", started, load_start)
    with open(RESULTS_JSON, "w") as f:
        json.dump({"date": meta["date"], "commit": meta["commit"], "targets": targets,
                   "ratios": {f"{p}/{k}": ratio(p, k) for (p, k) in groups}}, f, indent=1)
    lines = ["# Training monitor benchmark", "",
             "Generated by `bench/run_monitor_benchmarks.py`; do not edit by hand, rerun instead.", ""]
    lines += rb.date_and_machine_lines(meta)
    lines += [f"- Ours: commit {meta['commit']}{' (uncommitted changes)' if meta['dirty'] else ''}, "
              f"`{rb.shown_path(args.ours_python)}`; original: mindstudio-probe 1.2.1 in "
              f"`{rb.shown_path(args.orig_python)}` (with `params_have_main_grad=False`, which it needs on "
              "plain PyTorch).",
              "- Workload (`bench/monitor_step.py`): GPT-style decoder of `bench/gpt_step.py` (3.7 M parameters), "
              "AdamW, TrainerMon with ops min/max/norm/mean, format csv, every step; wg: every weight gradient "
              "(grad_reduced and grad_unreduced); xy: input, output and their gradients of the 4 decoder blocks; "
              "mg: mg_direction of every parameter (1.2.1 with `opt_ty=\"Megatron_FP32Optimizer\"`); "
              "cc: every gradient all_reduced in a one-rank gloo group, inputs and outputs summarised "
              "(cc_pre_hook). "
              "One thread. The monitor is on in every other step; 1.2.1's AccumulateGrad hooks stay on in its "
              "off steps, so its wg overhead reads low.",
              f"- {args.reps} processes per (package, mode); warmup/timed steps per process: ours "
              f"{OURS_STEPS[0]}/{OURS_STEPS[1]}, original {ORIG_STEPS[0]}/{ORIG_STEPS[1]}.", "",
              "| Target | Measured (wall) | CPU time | Limit | Result |", "|---|---|---|---|---|"]
    for t in targets:
        res = "n/a" if t["ok"] is None else ("PASS" if t["ok"] else "**FAIL**")
        lines.append(f"| {t['name']} | {t['measured']} | {t['cpu']} | {t['limit']} | {res} |")
    lines += ["", "| Mode | ours on / off median s | ours ratio | original on / off median s | original ratio "
              "| monitor-on steps ours, original |", "|---|---|---|---|---|---|"]

    def cells(pkg, key):
        g = groups.get((pkg, key))
        if not g:
            return "n/a", "n/a"
        return f"{statistics.median(g['on']):.3f} / {statistics.median(g['off']):.3f}", rb.fmt(ratio(pkg, key))
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
