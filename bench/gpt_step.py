#!/usr/bin/env python
"""One benchmark configuration per process: a GPT-style decoder training step on CPU.

Model: 4 decoder blocks, d_model 256, 4 heads, sequence 128, batch 8, vocabulary 1024,
minGPT-style explicit attention (matmul, masked_fill, softmax), GELU MLP (4x), AdamW.

    python bench/gpt_step.py --mode L1_statistics --steps 5 --warmup 2 --out result.json

Modes:
  none            no msprobe import at all
  off             PrecisionDebugger(level L1) created, start() never called
  L1_statistics   task statistics, level L1, summary_mode statistics
  mix_statistics  task statistics, level mix (APIs + modules), summary_mode statistics
  L1_md5          task statistics, level L1, summary_mode md5
  L1_tensor       task tensor, level L1 (every API input/output saved as a file)
  L1_overflow_check  task overflow_check, level L1, overflow_nums -1 (only entries holding
                  inf/NaN are written)

--finite-mask fills the causal mask with -1e9 instead of -inf. The attention's masked_fill output
holds -inf otherwise, which overflow_check (1.2.1's rule: Max or Min inf/NaN) reports in every
layer of every step; with a finite mask nothing overflows (same computation, same cost), which
is what bench/run_overflow_benchmarks.py measures.

Every step (warmup and timed) is dumped (config "step": []). A timed step is
debugger.start(model) .. debugger.step() inclusive: forward, loss, backward, AdamW step, timed
with time.perf_counter (wall) and time.process_time (CPU time of all the process's threads).
The script runs with whichever msprobe its interpreter imports (ours or the original 1.2.1)
and says which in the result.
"""
import argparse
import json
import os
import resource
import time

import step_script

MODES = ("none", "off", "L1_statistics", "mix_statistics", "L1_md5", "L1_tensor", "L1_overflow_check")

# mode -> (task, level, summary_mode)
PROBE_CONFIG = {
    "off": ("statistics", "L1", "statistics"),
    "L1_statistics": ("statistics", "L1", "statistics"),
    "mix_statistics": ("statistics", "mix", "statistics"),
    "L1_md5": ("statistics", "L1", "md5"),
    "L1_tensor": ("tensor", "L1", "statistics"),
    "L1_overflow_check": ("overflow_check", "L1", "statistics"),
}
MASK_VALUE = {"inf": float("-inf"), "finite": -1e9}

VOCAB, D_MODEL, N_HEAD, N_LAYER, SEQ, BATCH = 1024, 256, 4, 4, 128, 8


def build_model(torch, mask_value=float("-inf")):
    nn = torch.nn
    F = torch.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(D_MODEL, 3 * D_MODEL)
            self.c_proj = nn.Linear(D_MODEL, D_MODEL)
            self.register_buffer("mask", torch.tril(torch.ones(SEQ, SEQ)).view(1, 1, SEQ, SEQ))

        def forward(self, x):
            b, t, c = x.size()
            q, k, v = self.c_attn(x).split(D_MODEL, dim=2)
            hd = c // N_HEAD
            q = q.view(b, t, N_HEAD, hd).transpose(1, 2)
            k = k.view(b, t, N_HEAD, hd).transpose(1, 2)
            v = v.view(b, t, N_HEAD, hd).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / hd ** 0.5)
            att = att.masked_fill(self.mask[:, :, :t, :t] == 0, mask_value)
            att = F.softmax(att, dim=-1)
            y = att @ v
            y = y.transpose(1, 2).contiguous().view(b, t, c)
            return self.c_proj(y)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(D_MODEL, 4 * D_MODEL)
            self.act = nn.GELU()
            self.c_proj = nn.Linear(4 * D_MODEL, D_MODEL)

        def forward(self, x):
            return self.c_proj(self.act(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(D_MODEL)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(D_MODEL)
            self.mlp = MLP()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(VOCAB, D_MODEL)
            self.wpe = nn.Embedding(SEQ, D_MODEL)
            self.h = nn.ModuleList([Block() for _ in range(N_LAYER)])
            self.ln_f = nn.LayerNorm(D_MODEL)
            self.lm_head = nn.Linear(D_MODEL, VOCAB, bias=False)

        def forward(self, idx, targets):
            t = idx.size(1)
            pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
            x = self.wte(idx) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return GPT()


def training_setup(torch, seed, n_steps, mask_value=float("-inf"), device="cpu"):
    """The benchmarks' training state: the model (seeded by the caller's torch.manual_seed), its
    AdamW optimizer and n_steps (input, target) batches drawn from a generator seeded seed + 1."""
    model = build_model(torch, mask_value).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    g = torch.Generator().manual_seed(seed + 1)
    batches = [(torch.randint(0, VOCAB, (BATCH, SEQ), generator=g).to(device),
                torch.randint(0, VOCAB, (BATCH, SEQ), generator=g).to(device)) for _ in range(n_steps)]
    return model, opt, batches


def write_config(path, dump_path, mode):
    task, level, summary_mode = PROBE_CONFIG[mode]
    cfg = {
        "task": task,
        "dump_path": dump_path,
        "rank": [],
        "step": [],
        "level": level,
        "enable_dataloader": False,
        "statistics": {"scope": [], "list": [], "data_mode": ["all"],
                       "summary_mode": summary_mode},
        "tensor": {"scope": [], "list": [], "data_mode": ["all"], "file_format": "npy"},
        "overflow_check": {"overflow_nums": -1, "check_mode": "all"},
    }
    step_script.write_config(path, cfg)


def dump_entries(dump_path):
    """Entries written to the dump.json files (overflow_check writes only the overflowing ones)."""
    n = 0
    for dirpath, _, files in os.walk(dump_path):
        if "dump.json" in files:
            try:
                with open(os.path.join(dirpath, "dump.json")) as f:
                    n += len(json.load(f).get("data", {}))
            except (OSError, ValueError):
                pass
    return n


def peak_rss_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def current_rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    step_script.add_step_arguments(ap, MODES)
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--finite-mask", action="store_true",
                    help="causal mask -1e9 instead of -inf (nothing overflows)")
    args = ap.parse_args()
    work, dump_path = step_script.work_folder(args.dump_dir, "msprobe_bench_")

    t_import = time.perf_counter()
    import torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)

    model, opt, batches = training_setup(torch, args.seed, args.warmup + args.steps,
                                         MASK_VALUE["finite" if args.finite_mask else "inf"])

    package, msprobe_dir = step_script.msprobe_package()
    debugger = step_script.debugger_for(args.mode, "msprobe.pytorch", os.path.join(work, "config.json"),
                                        lambda path: write_config(path, dump_path, args.mode))
    writer_mb = int(os.environ.get("MSPROBE_WRITER_MEMORY_MB", "512")) \
        if debugger is not None and package == "ours" else None
    setup_s = time.perf_counter() - t_import
    probing = args.mode not in ("none", "off")

    def step(batch):
        x, y = batch
        if probing:
            debugger.start(model)
        opt.zero_grad(set_to_none=True)
        loss = model(x, y)
        loss.backward()
        opt.step()
        if probing:
            debugger.stop()
            debugger.step()
        return loss

    rss_before = current_rss_kb()
    step_times, step_cpu, losses = step_script.timed_steps(batches, step, lambda loss: float(loss.detach()))
    step_script.step_result(
        args, package, msprobe_dir, step_times, step_cpu, losses, setup_s,
        finite_mask=args.finite_mask, torch=torch.__version__, threads=torch.get_num_threads(),
        rss_before_steps_kb=rss_before, peak_rss_kb=peak_rss_kb(), writer_memory_mb=writer_mb,
        dump_path=dump_path if probing else None,
        dump_entries=dump_entries(dump_path) if probing else None)


if __name__ == "__main__":
    main()
