#!/usr/bin/env python
"""One grad_probe benchmark configuration per process: bench/gpt_step.py's GPT-style decoder
trained on CPU with AdamW, and debugger.monitor(model) (task grad_probe) recording every step.

    python bench/grad_step.py --mode L2 --steps 10 --warmup 2 --out result.json

Modes: none (no msprobe import at all), L0, L1, L2 (grad_level; bounds [-1, 0, 1], every
parameter, every step). A timed step is forward, loss, backward and optimizer.step() (where
grad_probe's optimizer pre-step hook runs), timed by time.perf_counter (wall) and
time.process_time (CPU time). The script runs with whichever msprobe its interpreter imports
(ours or the original 1.2.1) and says which in the result.

--paired (a grad level only): the probe is on in every other timed step and off in the others
(torch's global optimizer pre-step hooks, where both packages install theirs, are emptied and
restored), so that both kinds of steps see the same machine load; the result's step_times_s are
the probe-on steps and off_times_s the probe-off ones."""
import argparse
import os
import time

import gpt_step
import step_script

MODES = ("none", "L0", "L1", "L2")


def write_config(path, dump_path, mode):
    step_script.write_config(path, {
        "task": "grad_probe", "dump_path": dump_path, "rank": [], "step": [],
        "grad_probe": {"grad_level": mode, "param_list": [], "bounds": [-1, 0, 1]}})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    step_script.add_step_arguments(ap, MODES)
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--paired", action="store_true", help="probe on and off in alternate steps")
    args = ap.parse_args()
    work, dump_path = step_script.work_folder(args.dump_dir, "msprobe_gradbench_")

    t_import = time.perf_counter()
    import torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model, opt, batches = gpt_step.training_setup(torch, args.seed, args.warmup + args.steps)
    package, msprobe_dir = step_script.msprobe_package()
    debugger = step_script.debugger_for(args.mode, "msprobe.pytorch", os.path.join(work, "config.json"),
                                        lambda path: write_config(path, dump_path, args.mode))
    if debugger is not None:
        debugger.monitor(model)
    setup_s = time.perf_counter() - t_import

    def step(batch):
        x, y = batch
        opt.zero_grad(set_to_none=True)
        loss = model(x, y)
        loss.backward()
        opt.step()
        return loss

    extra = {}
    if args.paired and debugger is not None:
        from torch.optim import optimizer as optimizer_module
        hooks = optimizer_module._global_optimizer_pre_hooks
        installed = dict(hooks)
        plain_step, n = step, [0]

        def step(batch):  # noqa: F811  on in even steps, off in odd ones
            hooks.clear()
            if n[0] % 2 == 0:
                hooks.update(installed)
            n[0] += 1
            return plain_step(batch)

    step_times, step_cpu, losses = step_script.timed_steps(batches, step, lambda loss: float(loss.detach()))
    if args.paired and debugger is not None:
        step_times, step_cpu, extra = step_script.split_paired(args, step_times, step_cpu)
    step_script.step_result(args, package, msprobe_dir, step_times, step_cpu, losses, setup_s,
                            torch=torch.__version__, threads=torch.get_num_threads(),
                            params=sum(p.numel() for p in model.parameters()),
                            peak_rss_kb=gpt_step.peak_rss_kb(), paired=bool(extra), **extra)


if __name__ == "__main__":
    main()
