#!/usr/bin/env python
"""Cost of a wrapped-but-switched-off API call ("probe on, dump off"), measured in one process.

    python bench/wrapper_cost.py --out result.json

The step benchmark cannot resolve a 1% effect on a shared, noisy machine, so this measures the
"off" cost directly and in-process: per-call time of a few cheap torch APIs on tiny tensors,
the function saved before PrecisionDebugger(level L1) was created against the wrapper installed
by its creation (both packages install their wrappers then; start() is never called), in
alternating batches, minimum over the batches of each. With our package it also counts
how many wrapper invocations one GPT training step makes (sys.setprofile on the wrapper function),
so that  off overhead per step ~= calls per step x extra time per call.
Runs with whichever msprobe its interpreter imports.
"""
import argparse
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt_step import BATCH, SEQ, VOCAB, build_model, write_config  # noqa: E402


def per_call_ns(fn, calls=20000, batches=9):
    best = float("inf")
    for _ in range(batches):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / calls)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--calls", type=int, default=5000, help="most calls per timed batch (fewer when a call is slow)")
    ap.add_argument("--batches", type=int, default=30, help="timed batches per variant")
    args = ap.parse_args()

    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
    a, b = torch.randn(16), torch.randn(16)
    # (name, owner, attribute, call with the function)
    ops = [
        ("torch.add(a, b)", torch, "add", lambda fn: fn(a, b)),
        ("a.add(b)", torch.Tensor, "add", lambda fn: fn(a, b)),
        ("a + b", torch.Tensor, "__add__", lambda fn: fn(a, b)),
        ("torch.relu(a)", torch, "relu", lambda fn: fn(a)),
        ("a.sum()", torch.Tensor, "sum", lambda fn: fn(a)),
    ]
    originals = {name: getattr(owner, attr) for name, owner, attr, _ in ops}

    work = tempfile.mkdtemp(prefix="msprobe_wrapper_cost_")
    try:
        cfg = os.path.join(work, "config.json")
        write_config(cfg, os.path.join(work, "dump"), "off")
        import msprobe
        from msprobe.pytorch import PrecisionDebugger
        package = "ours" if importlib.util.find_spec("msprobe._core") else "original"
        debugger = PrecisionDebugger(config_path=cfg)  # noqa: F841  (never started)
        # Interleaved A/B in one process: the saved original against the installed wrapper,
        # batch by batch; the minimum over batches of each.
        before, after = {}, {}
        for name, owner, attr, call in ops:
            orig, wrapped = originals[name], getattr(owner, attr)
            f_orig = lambda: call(orig)  # noqa: E731
            f_wrap = lambda: call(wrapped)  # noqa: E731
            per_call_ns(f_orig, batches=2)
            # ~5 ms per batch: the original's wrappers cost tens of microseconds per call
            calls = max(200, min(args.calls, int(5e6 / per_call_ns(f_wrap, 200, 3))))
            bo, bw = float("inf"), float("inf")
            for i in range(args.batches):
                if i % 2:
                    bo = min(bo, per_call_ns(f_orig, calls, 1))
                    bw = min(bw, per_call_ns(f_wrap, calls, 1))
                else:
                    bw = min(bw, per_call_ns(f_wrap, calls, 1))
                    bo = min(bo, per_call_ns(f_orig, calls, 1))
            before[name], after[name] = bo, bw
            if wrapped is orig:
                after[name] = before[name]  # not wrapped by this package

        calls_per_step = None
        if package == "ours":
            from msprobe.pytorch import api_wrapper
            wrapper_code = api_wrapper.make_wrapper(lambda: None, "x").__code__
            model = build_model(torch)
            opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
            g = torch.Generator().manual_seed(1)
            x = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
            y = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
            counts = [0]

            def prof(frame, event, arg):
                if event == "call" and frame.f_code is wrapper_code:
                    counts[0] += 1

            for i in range(2):  # the second step has AdamW's state in place
                counts[0] = 0
                sys.setprofile(prof)
                try:
                    opt.zero_grad(set_to_none=True)
                    model(x, y).backward()
                    opt.step()
                finally:
                    sys.setprofile(None)
            calls_per_step = counts[0]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    delta = {k: after[k] - before[k] for k in before}
    result = {
        "package": package,
        "msprobe_dir": os.path.dirname(msprobe.__file__),
        "before_ns": before,
        "after_ns": after,
        "delta_ns": delta,
        "mean_delta_ns": sum(delta.values()) / len(delta),
        "wrapper_calls_per_step": calls_per_step,
        "wrapped": {name: getattr(owner, attr) is not originals[name] for name, owner, attr, _ in ops},
    }
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
