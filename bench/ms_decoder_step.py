#!/usr/bin/env python
"""One benchmark process: a MindSpore (PyNative, CPU) training step of a small decoder-only
transformer, with or without msprobe, written as a result JSON. Works with our msprobe and with
the original 1.2.1 (whichever `msprobe` the interpreter imports; the original needs
tests/mindspore/orig_shim.py on MindSpore 2.10, applied when MSPROBE_ORIGINAL_SHIM=1).

    python bench/ms_decoder_step.py --mode L1_statistics --steps 10 --warmup 2 --out result.json

Modes: none (no msprobe imported), off (PrecisionDebugger for L1 created, start() never called),
L0_statistics, L1_statistics, mix_statistics (task statistics, summary_mode statistics),
fb_bit_noise, fb_no_change (task free_benchmark, check, forward, every API it checks).
One timed step = debugger.start(model) .. debugger.step() inclusive: forward and backward
(value_and_grad), optimizer update. The model's weights come from a fixed NumPy seed, so the
losses are identical in every process and with either package.
"""
import argparse
import os
import resource
import sys
import time

import step_script

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

MODES = ("none", "off", "L0_statistics", "L1_statistics", "mix_statistics", "fb_bit_noise", "fb_no_change")
PROBE_CONFIG = {  # mode -> (task, level, summary_mode)
    "off": ("statistics", "L1", "statistics"),
    "L0_statistics": ("statistics", "L0", "statistics"),
    "L1_statistics": ("statistics", "L1", "statistics"),
    "mix_statistics": ("statistics", "mix", "statistics"),
}

# The same GPT-style decoder as bench/gpt_step.py (PyTorch), so that the two benchmarks compare.
N_LAYER, D_MODEL, N_HEAD, SEQ, BATCH, VOCAB = 4, 256, 4, 128, 8, 1024


def build(ms, np, seed):
    """Returns (model, loss function cell). Uses Tensor methods, ops, mint, mint.nn.functional
    and Cells with Primitives (nn.Embedding, nn.LayerNorm), so every wrapped family is hit."""
    from mindspore import Parameter, Tensor, mint, nn, ops

    rng = np.random.default_rng(seed)
    F = mint.nn.functional

    def param(shape, name, scale=0.02):
        return Parameter(Tensor(rng.normal(0.0, scale, shape).astype(np.float32)), name=name)

    def zeros(shape, name):
        return Parameter(Tensor(np.zeros(shape, np.float32)), name=name)

    class Linear(nn.Cell):
        def __init__(self, d_in, d_out, name):
            super().__init__()
            self.weight = param((d_out, d_in), name + ".weight")
            self.bias = zeros((d_out,), name + ".bias")

        def construct(self, x):
            return F.linear(x, self.weight, self.bias)

    class CausalSelfAttention(nn.Cell):
        def __init__(self, name):
            super().__init__()
            self.c_attn = Linear(D_MODEL, 3 * D_MODEL, name + ".c_attn")
            self.c_proj = Linear(D_MODEL, D_MODEL, name + ".c_proj")
            self.mask = Tensor(np.triu(np.ones((SEQ, SEQ), np.bool_), 1))
            self.scale = 1.0 / (D_MODEL // N_HEAD) ** 0.5

        def construct(self, x):
            b, t, c = x.shape
            hd = c // N_HEAD
            q, k, v = mint.split(self.c_attn(x), D_MODEL, dim=2)
            q = q.view(b, t, N_HEAD, hd).transpose(0, 2, 1, 3)
            k = k.view(b, t, N_HEAD, hd).transpose(0, 2, 3, 1)
            v = v.view(b, t, N_HEAD, hd).transpose(0, 2, 1, 3)
            att = mint.matmul(q, k) * self.scale
            att = att.masked_fill(self.mask, float("-inf"))
            att = ops.softmax(att, axis=-1)
            y = mint.matmul(att, v)
            y = y.transpose(0, 2, 1, 3).reshape(b, t, c)
            return self.c_proj(y)

    class MLP(nn.Cell):
        def __init__(self, name):
            super().__init__()
            self.c_fc = Linear(D_MODEL, 4 * D_MODEL, name + ".c_fc")
            self.c_proj = Linear(4 * D_MODEL, D_MODEL, name + ".c_proj")

        def construct(self, x):
            return self.c_proj(ops.gelu(self.c_fc(x), approximate="tanh"))

    class Block(nn.Cell):
        def __init__(self, name):
            super().__init__()
            self.ln_1 = nn.LayerNorm((D_MODEL,))
            self.attn = CausalSelfAttention(name + ".attn")
            self.ln_2 = nn.LayerNorm((D_MODEL,))
            self.mlp = MLP(name + ".mlp")

        def construct(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Cell):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(VOCAB, D_MODEL,
                                    embedding_table=Tensor(rng.normal(0, 0.02, (VOCAB, D_MODEL))
                                                           .astype(np.float32)))
            self.wpe = param((SEQ, D_MODEL), "wpe")
            self.h = nn.CellList([Block(f"h.{i}") for i in range(N_LAYER)])
            self.ln_f = nn.LayerNorm((D_MODEL,))
            self.lm_head = Linear(D_MODEL, VOCAB, "lm_head")

        def construct(self, idx):
            x = self.wte(idx) + self.wpe
            for block in self.h:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    class WithLoss(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def construct(self, idx, targets):
            logits = self.net(idx)
            return ops.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))

    model = GPT()
    return model, WithLoss(model)


def write_config(path, dump_path, mode):
    if mode.startswith("fb_"):
        step_script.write_config(path, {
            "task": "free_benchmark", "dump_path": dump_path, "rank": [], "step": [], "level": "L1",
            "free_benchmark": {"list": [], "fuzz_device": "npu", "pert_mode": mode[len("fb_"):],
                               "handler_type": "check", "fuzz_level": "L1", "fuzz_stage": "forward"}})
        return
    task, level, summary_mode = PROBE_CONFIG[mode]
    cfg = {
        "task": task,
        "dump_path": dump_path,
        "rank": [],
        "step": [],
        "level": level,
        "statistics": {"scope": [], "list": [], "data_mode": ["all"],
                       "summary_mode": summary_mode},
    }
    step_script.write_config(path, cfg)


def csv_rows(dump_path):
    """free_benchmark.csv's rows (0 without the file)."""
    path = os.path.join(dump_path, "free_benchmark.csv")
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return max(sum(1 for _ in f) - 1, 0)


def peak_rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def thread_count():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    step_script.add_step_arguments(ap, MODES)
    args = ap.parse_args()
    work, dump_path = step_script.work_folder(args.dump_dir, "msprobe_msbench_")

    # One compute thread, so that two shared cores give stable numbers (the driver also sets
    # OMP_NUM_THREADS=1 in the environment, before MindSpore is loaded).
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if os.environ.get("MSPROBE_ORIGINAL_SHIM") == "1":
        sys.path.insert(0, os.path.join(ROOT, "tests", "mindspore"))
        import orig_shim  # noqa: F401  (the original 1.2.1 on MindSpore 2.10)

    t_import = time.perf_counter()
    import mindspore as ms
    import numpy as np
    from mindspore import Tensor, nn

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    ms.set_seed(args.seed)
    try:
        ms.set_context(runtime_num_threads=1)  # kernel thread pool of the CPU backend
    except Exception:
        pass

    model, loss_net = build(ms, np, args.seed)
    optimizer = nn.AdamWeightDecay(model.trainable_params(), learning_rate=3e-4, weight_decay=0.1)
    grad_fn = ms.value_and_grad(loss_net, None, optimizer.parameters)
    rng = np.random.default_rng(args.seed + 1)
    n_steps = args.warmup + args.steps
    batches = [(Tensor(rng.integers(0, VOCAB, (BATCH, SEQ)).astype(np.int32)),
                Tensor(rng.integers(0, VOCAB, (BATCH, SEQ)).astype(np.int32)))
               for _ in range(n_steps)]

    package, msprobe_dir = step_script.msprobe_package()
    debugger = step_script.debugger_for(args.mode, "msprobe.mindspore", os.path.join(work, "config.json"),
                                        lambda path: write_config(path, dump_path, args.mode))
    setup_s = time.perf_counter() - t_import
    probing = args.mode not in ("none", "off")

    def step(batch):
        x, y = batch
        if probing:
            debugger.start(model)
        loss, grads = grad_fn(x, y)
        if probing:
            debugger.stop()
        optimizer(grads)
        loss_value = float(loss.asnumpy())  # waits for the step's kernels
        if probing:
            debugger.step()
        return loss_value

    step_times, step_cpu, losses = step_script.timed_steps(batches, step, float)
    step_script.step_result(
        args, package, msprobe_dir, step_times, step_cpu, losses, setup_s,
        mindspore=ms.__version__, threads=thread_count(), peak_rss_kb=peak_rss_kb(),
        dump_path=dump_path if probing else None, csv_rows=csv_rows(dump_path) if probing else None)


if __name__ == "__main__":
    main()
