#!/usr/bin/env python
"""One device-step benchmark configuration per process: bench/gpt_step.py's GPT-style decoder
training step on an accelerator ("cuda" when torch sees one), else on the CPU.

    python bench/device_step.py --mode L1_statistics --device cuda --steps 10 --out r.json

Modes: none, L1_statistics, mix_statistics (see gpt_step.py). A timed step is
debugger.start(model) .. debugger.step() inclusive, followed by a device synchronize, so that
it includes all the device work it started. On the CPU, run ours with MSPROBE_FORCE_DEVICE_PATH=1
to time the device path there (a testing aid: the CPU does the device's work too).
The script runs with whichever msprobe its interpreter imports (ours or the original 1.2.1).
"""
import argparse
import atexit
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt_step  # noqa: E402  (the model and config of the CPU benchmark)

MODES = ("none", "L1_statistics", "mix_statistics")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=MODES, required=True)
    ap.add_argument("--device", default="auto", help="cuda, cpu, ... (auto: cuda if available)")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    import torch
    device = args.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    n = args.warmup + args.steps
    model, opt, batches = gpt_step.training_setup(torch, args.seed, n, device=device)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)

    work = tempfile.mkdtemp(prefix="msprobe_devbench_")
    # Registered before the debugger's own exit handler, so it runs after the final flush.
    atexit.register(shutil.rmtree, work, True)
    package, debugger, forced = "none", None, os.environ.get("MSPROBE_FORCE_DEVICE_PATH", "")
    if args.mode != "none":
        import importlib.util

        from msprobe.pytorch import PrecisionDebugger
        package = "ours" if importlib.util.find_spec("msprobe._core") else "original"
        cfg = os.path.join(work, "config.json")
        gpt_step.write_config(cfg, os.path.join(work, "dump"), args.mode)
        debugger = PrecisionDebugger(config_path=cfg)
    times, losses = [], []
    for x, y in batches:
        sync()
        t0 = time.perf_counter()
        if debugger:
            debugger.start(model)
        opt.zero_grad(set_to_none=True)
        loss = model(x, y)
        loss.backward()
        opt.step()
        if debugger:
            debugger.stop()
            debugger.step()
        sync()
        times.append(time.perf_counter() - t0)
        losses.append(float(loss.detach()))
    recorder = getattr(debugger, "device_recorder", None)
    with open(args.out, "w") as f:
        json.dump({"mode": args.mode, "package": package, "device": device,
                   "device_name": torch.cuda.get_device_name() if device.startswith("cuda") else
                   "cpu", "forced": forced, "torch": torch.__version__,
                   "device_records": getattr(recorder, "recorded", None),
                   "step_times_s": times[args.warmup:], "losses": losses}, f, indent=1)


if __name__ == "__main__":
    main()
