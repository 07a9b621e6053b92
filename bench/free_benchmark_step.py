#!/usr/bin/env python
"""One free_benchmark benchmark configuration per process: bench/gpt_step.py's GPT-style decoder
training step (4 blocks, d_model 256, sequence 128, batch 8, AdamW; fp32 on CPU) under task
free_benchmark, check handler, forward stage, every API of the catalogue (no scope, no list).

    python bench/free_benchmark_step.py --mode fb_bit_noise --steps 3 --warmup 1 --out result.json

Modes: none (no msprobe import), fb_<pert_mode> for bit_noise, add_noise, no_change,
change_value. (improve_precision re-runs nothing in an fp32 model, in 1.2.1 as here.)
A timed step is debugger.start(model) .. debugger.step() inclusive (the optimizer step inside,
as 1.2.1's documentation places it), timed with time.perf_counter and time.process_time. Runs
with whichever msprobe its interpreter imports (ours or the original) and says which.
"""
import argparse
import os
import time

import gpt_step
import step_script

PERT_MODES = ("bit_noise", "add_noise", "no_change", "change_value")
MODES = ("none",) + tuple("fb_" + m for m in PERT_MODES)


def write_config(path, dump_path, mode):
    step_script.write_config(path, {
        "task": "free_benchmark", "dump_path": dump_path, "rank": [], "step": [], "level": "L1",
        "free_benchmark": {"scope": [], "list": [], "fuzz_device": "npu", "pert_mode": mode[len("fb_"):],
                           "handler_type": "check", "fuzz_level": "L1", "fuzz_stage": "forward",
                           "if_preheat": False, "preheat_step": 15, "max_sample": 20}})


def csv_rows(dump_path):
    path = os.path.join(dump_path, "free_benchmark.csv")
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return max(sum(1 for _ in f) - 1, 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    step_script.add_step_arguments(ap, MODES)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    work, dump_path = step_script.work_folder(args.dump_dir, "msprobe_fbbench_")
    t_import = time.perf_counter()
    import torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model, opt, batches = gpt_step.training_setup(torch, args.seed, args.warmup + args.steps, -1e9)
    package, msprobe_dir = step_script.msprobe_package()
    debugger = step_script.debugger_for(args.mode, "msprobe.pytorch", os.path.join(work, "config.json"),
                                        lambda path: write_config(path, dump_path, args.mode))
    setup_s = time.perf_counter() - t_import

    def step(batch):
        x, y = batch
        if debugger is not None:
            debugger.start(model)
        opt.zero_grad(set_to_none=True)
        loss = model(x, y)
        loss.backward()
        opt.step()
        if debugger is not None:
            debugger.stop()
            debugger.step()
        return loss

    times, cpu, losses = step_script.timed_steps(batches, step, lambda loss: float(loss.detach()))
    step_script.step_result(args, package, msprobe_dir, times, cpu, losses, setup_s, torch=torch.__version__,
                            threads=torch.get_num_threads(),
                            csv_rows=csv_rows(dump_path) if debugger is not None else None)


if __name__ == "__main__":
    main()
