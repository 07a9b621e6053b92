#!/usr/bin/env python
"""One training-monitor benchmark configuration per process: bench/gpt_step.py's GPT-style decoder
trained on CPU with AdamW under TrainerMon (1.2.1's docs 19 interface), monitor on and off in
alternate steps.

    python bench/monitor_step.py --mode wg --steps 16 --warmup 2 --out result.json

Modes: wg (weight gradients: wg_distribution), xy (activations and their gradients of the decoder
blocks h.0 .. h.3, as 1.2.1's performance baseline monitors layers), mg (mg_direction: every
parameter's gradient against AdamW's exp_avg), cc (cc_distribution: every gradient all_reduced in
a one-rank gloo group before the optimizer step, the collectives' inputs and outputs summarised);
ops min, max, norm, mean, format csv, every step. The script runs with whichever msprobe its
interpreter imports (ours, or the original 1.2.1 with params_have_main_grad=False, which it needs
on plain PyTorch, and for mg opt_ty="Megatron_FP32Optimizer", without which it finds no exp_avg
and fails).

Alternate steps: the monitor's hooks (module forward pre-hooks, forward hooks and backward hooks;
ours reads a module's gradients with the first two, module_backward.py; the parameters'
post-accumulate-grad hooks, torch's global optimizer step hooks) are emptied and restored, so that
on and off steps see the same machine load; in mode cc the off steps call the all_reduce the
monitor wrapped. 1.2.1's weight-gradient hooks sit on autograd's
AccumulateGrad nodes and stay on in the off steps: its wg overhead is measured low, not high."""
import argparse
import os
import socket
import time

import gpt_step
import step_script

MODES = ("wg", "xy", "mg", "cc")
OPS = ["min", "max", "norm", "mean"]


def config_of(mode):
    if mode == "wg":
        return {"wg_distribution": True, "ops": OPS, "format": "csv"}
    if mode == "mg":
        return {"mg_direction": True, "ops": OPS, "format": "csv"}
    if mode == "cc":
        return {"cc_distribution": {"enable": True, "cc_pre_hook": True}, "ops": OPS, "format": "csv"}
    return {"targets": {f"h.{i}": {} for i in range(gpt_step.N_LAYER)}, "xy_distribution": True, "ops": OPS,
            "format": "csv"}


class HookSwitch:
    """Every hook the monitor installed, emptied (off) and restored (on)."""

    def __init__(self, torch, model):
        from torch.optim import optimizer as optimizer_module
        self.dicts = [optimizer_module._global_optimizer_pre_hooks, optimizer_module._global_optimizer_post_hooks]
        for m in model.modules():
            self.dicts += [m._forward_pre_hooks, m._forward_hooks, m._backward_hooks]
        for p in model.parameters():
            hooks = getattr(p, "_post_accumulate_grad_hooks", None)
            if hooks is not None:
                self.dicts.append(hooks)
        self.saved = [dict(d) for d in self.dicts]

    def set(self, on):
        for d, saved in zip(self.dicts, self.saved):
            d.clear()
            if on:
                d.update(saved)


def one_rank_group(dist):
    """A gloo process group of this process alone (cc_distribution needs torch.distributed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    step_script.add_step_arguments(ap, MODES)
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    args = ap.parse_args()
    work, out_dir = step_script.work_folder(args.dump_dir, "msprobe_monitorbench_")
    os.environ["MONITOR_OUTPUT_DIR"] = out_dir

    t_import = time.perf_counter()
    import torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model, opt, batches = gpt_step.training_setup(torch, args.seed, args.warmup + args.steps)
    package, msprobe_dir = step_script.msprobe_package()
    import torch.distributed as dist
    if args.mode == "cc":
        one_rank_group(dist)
    unwrapped = dist.all_reduce
    from msprobe.pytorch import TrainerMon
    cfg_path = os.path.join(work, "config.json")
    step_script.write_config(cfg_path, config_of(args.mode))
    if package == "ours":
        mon = TrainerMon(cfg_path)
    else:
        mon = TrainerMon(cfg_path, params_have_main_grad=False,
                         opt_ty="Megatron_FP32Optimizer" if args.mode == "mg" else None)
    mon.monitor_gnorm_with_ad(model, grad_acc_steps=1)
    switch = HookSwitch(torch, model)
    wrapped = dist.all_reduce
    setup_s = time.perf_counter() - t_import
    n = [0]

    def step(batch):
        on = n[0] % 2 == 0          # on in even steps, off in odd ones
        switch.set(on)
        n[0] += 1
        x, y = batch
        opt.zero_grad(set_to_none=True)
        loss = model(x, y)
        loss.backward()
        if args.mode == "cc":
            all_reduce = wrapped if on else unwrapped
            for p in model.parameters():
                all_reduce(p.grad)
        opt.step()
        return loss

    step_times, step_cpu, losses = step_script.timed_steps(batches, step, lambda loss: float(loss.detach()))
    step_times, step_cpu, extra = step_script.split_paired(args, step_times, step_cpu)
    files = sum(len(fs) for _, _, fs in os.walk(out_dir))
    step_script.step_result(args, package, msprobe_dir, step_times, step_cpu, losses, setup_s,
                            torch=torch.__version__, threads=torch.get_num_threads(),
                            params=sum(p.numel() for p in model.parameters()), files=files, paired=True, **extra)


if __name__ == "__main__":
    main()
