#!/usr/bin/env python
"""overflow_check against L1 statistics, paired in one process (ours only).

    python bench/overflow_paired.py --rounds 10 --out result.json

Whole-process step ratios differ by ±5-10% between processes on a shared 2-core machine, more
than the difference to measure. This builds the GPT step of gpt_step.py (finite mask: nothing
overflows) once and, round after round, runs a few steps with no probe, with L1 statistics and
with L1 overflow_check (overflow_nums -1), the PrecisionDebugger re-created for each task
(`PrecisionDebugger._reset_for_tests`), alternating the order; each step is timed (wall and
process CPU time, the writer thread's included). Medians per task over all rounds.
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt_step import BATCH, SEQ, VOCAB, build_model  # noqa: E402

TASKS = ("none", "statistics", "overflow_check")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--steps", type=int, default=3, help="timed steps per task and round")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = build_model(torch, -1e9)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    g = torch.Generator().manual_seed(1)
    x = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    y = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    from msprobe.pytorch import PrecisionDebugger
    if not hasattr(PrecisionDebugger, "_reset_for_tests"):
        sys.exit("overflow_paired.py needs our msprobe (PrecisionDebugger._reset_for_tests)")
    work = tempfile.mkdtemp(prefix="msprobe_paired_")
    wall = {t: [] for t in TASKS}
    cpu = {t: [] for t in TASKS}
    rounds = []  # per round: {task: median wall step}

    def step(dbg):
        t0, c0 = time.perf_counter(), time.process_time()
        if dbg:
            dbg.start(model)
        opt.zero_grad(set_to_none=True)
        loss = model(x, y)
        loss.backward()
        opt.step()
        if dbg:
            dbg.stop()
            dbg.step()
        return time.perf_counter() - t0, time.process_time() - c0

    try:
        for r in range(args.rounds):
            rounds.append({})
            for task in (TASKS if r % 2 == 0 else TASKS[::-1]):
                dbg = None
                if task != "none":
                    cfg = os.path.join(work, task + ".json")
                    with open(cfg, "w") as f:
                        json.dump({"task": task, "dump_path": os.path.join(work, f"dump_{r}_{task}"),
                                   "level": "L1", "overflow_check": {"overflow_nums": -1}}, f)
                    dbg = PrecisionDebugger(config_path=cfg)
                step(dbg)  # warmup
                times = []
                for _ in range(args.steps):
                    w, c = step(dbg)
                    times.append(w)
                    wall[task].append(w)
                    cpu[task].append(c)
                rounds[-1][task] = statistics.median(times)
                if dbg:
                    PrecisionDebugger._reset_for_tests()
                    shutil.rmtree(os.path.join(work, f"dump_{r}_{task}"), ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # The tasks of one round ran within seconds of each other: their difference is much less
    # affected by slow drifts of the machine than pooled medians are.
    diffs = [(r["overflow_check"] - r["statistics"]) / r["none"] for r in rounds]
    result = {"rounds": args.rounds, "steps": args.steps,
              "round_medians_s": rounds,
              "median_round_difference": statistics.median(diffs),
              "wall_median_s": {t: statistics.median(v) for t, v in wall.items()},
              "cpu_median_s": {t: statistics.median(v) for t, v in cpu.items()},
              "wall_s": wall, "cpu_s": cpu}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
