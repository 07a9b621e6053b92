#!/usr/bin/env python
"""Attributes py-spy raw samples (`py-spy record --native -f raw`) of bench/gpt_step.py's timed
loop to where the time goes. Used by bench/profile_overhead.sh.

    python bench/profile_summary.py --rate 200 build/bench-profile/none build/bench-profile/L1_md5

Each argument is a prefix: PREFIX.raw (py-spy output) and PREFIX.json (gpt_step.py result, for the
number of steps). Categories (per sample, by who owns the innermost frames):
  training compute      no probe frame, or the torch op a wrapper forwards to
  python probe code     msprobe .py frames (wrappers, hooks, callbacks) and the interpreter under them
  C++ statistics/CRC    compute_stats, crc32, the statistics kernels
  C++ stack capture     capture_stack / frame interning
  C++ tensor view       turning a torch.Tensor into a TensorView (attributes, DLPack, dtype)
  C++ record building   JSON entries, tensor records, emit_*, npy/pt encoding on the caller thread
  C++ writer queue      waiting on or handing records to the background writer (backpressure)
  C++ other             nanobind dispatch, naming, argument walk, everything else in _core
  torch called by probe torch work started by probe code (grad_fn.register_hook, module hook
                        plumbing such as BackwardHookFunction, .detach(), .contiguous())
py-spy samples only threads that run Python, so the C++ writer thread is not seen; its cost shows
in the benchmark's process CPU time (time.process_time) instead.
"""
import argparse
import collections
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN_RE = re.compile(r"^main \(.*gpt_step\.py:(\d+)\)$")

FRAME_RE = re.compile(r"^(.*) \(([^()]*?)(?::(\d+))?\)$")

STATS_FILES = ("tensor_stats.cc", "crc32.cc", "stats_internal.h", "crc32_internal.h",
               "tensor_stats.h")
RECORD_FILES = ("arg_encoder.cc", "json_text.cc", "json_value.cc", "json_writer.h",
                "npy_writer.cc", "pt_writer.cc", "zip_writer.cc", "tensor_record.cc",
                "dump_session.cc", "dump_summary.cc")
ARG_WALK_FUNCS = ("positional", "keywords", "as_list", "part<", "part (", "value", "encode",
                  "backward_entry", "append_", "write_tensor_record")


def split_frame(f):
    m = FRAME_RE.match(f)
    if not m:
        return f, ""
    return m.group(1), os.path.basename(m.group(2))


def core_frame_category(f):
    """Category of one _core frame, or None when the frame says nothing specific (nanobind
    dispatch, std containers, libc)."""
    func, file = split_frame(f)
    if file in STATS_FILES or "compute_stats" in func or "crc32" in func:
        return "C++ statistics/CRC"
    if any(k in func for k in ("capture_stack", "intern_frame", "emit_stack")) or \
            "PyFrame_" in func:
        return "C++ stack capture"
    if file.startswith("async_writer") or "AsyncWriter" in func:
        return "C++ writer queue"
    if file.startswith("tensor_from_python") or file.startswith("tensor_view") or \
            file.startswith("dtype"):
        return "C++ tensor view"
    if file in RECORD_FILES or (file == "session_bindings.cc" and
                                any(k in func for k in ARG_WALK_FUNCS)):
        return "C++ record building"
    return None


def loop_lines(path=os.path.join(ROOT, "bench", "gpt_step.py")):
    with open(path) as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines, 1) if "in enumerate(batches)" in l)
    end = next(i for i, l in enumerate(lines, 1) if i > start and "step_times.append" in l)
    return start, end


def is_core(f):
    """A frame of msprobe._core: the library name when it has no debug info, or a C/C++ source
    file (only _core is built with debug info by profile_overhead.sh)."""
    if "_core.cpython" in f:
        return True
    func, file = split_frame(f)
    if not file or file.endswith(".py") or file.startswith("<") or file.endswith(")"):
        return False
    return FRAME_RE.match(f).group(3) is not None


def is_probe_py(f):
    return "msprobe/" in f and ".py:" in f


def is_torch(f):
    return any(s in f for s in ("libtorch", "libc10", "(torch/", "libgomp", "mkl_", "libshm",
                                "at::", "c10::", "torch::"))


def core_category(frames):
    for f in reversed(frames):
        if is_core(f):
            cat = core_frame_category(f)
            if cat:
                return cat
    return "C++ other"


def classify(frames, lo, hi):
    main_idx = None
    for i, f in enumerate(frames):
        m = MAIN_RE.match(f)
        if m:
            main_idx = i if lo <= int(m.group(1)) <= hi else -1
            break
    if main_idx is None:
        return None  # another thread
    if main_idx < 0:
        return None  # setup, imports, exit
    frames = frames[main_idx + 1:]
    first = next((i for i, f in enumerate(frames) if is_core(f) or is_probe_py(f)), None)
    if first is None:
        return "training compute"
    owner, last_probe, seg_start = "probe", frames[first], first
    for i in range(first, len(frames)):
        f = frames[i]
        if is_core(f) or is_probe_py(f):
            if owner != "probe":
                seg_start = i
            owner, last_probe = "probe", f
        elif owner == "probe" and is_torch(f):
            if "make_wrapper.<locals>.wrapper" in last_probe:
                owner = "training"
            else:
                owner = "probe-torch"
    if owner == "training":
        return "training compute"
    if owner == "probe-torch":
        if "_hook_backward" in last_probe:
            return "torch called by probe: grad_fn.register_hook"
        return "torch called by probe"
    probe_frames = frames[seg_start:]
    innermost_probe = next(f for f in reversed(probe_frames) if is_core(f) or is_probe_py(f))
    if is_probe_py(innermost_probe):
        return "python probe code"
    return core_category(probe_frames)


def summarize(prefix, rate, lo, hi):
    counts = collections.Counter()
    with open(prefix + ".raw") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, n = line.rpartition(" ")
            cat = classify(stack.split(";"), lo, hi)
            if cat:
                counts[cat] += int(n)
    steps = None
    if os.path.exists(prefix + ".json"):
        with open(prefix + ".json") as f:
            r = json.load(f)
        steps = r["warmup"] + r["steps"]
    return counts, steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rate", type=float, default=200, help="py-spy sampling rate (Hz)")
    ap.add_argument("prefixes", nargs="+")
    args = ap.parse_args()
    lo, hi = loop_lines()
    rows = {}
    for p in args.prefixes:
        counts, steps = summarize(p, args.rate, lo, hi)
        rows[os.path.basename(p)] = (counts, steps)
    cats = []
    for counts, _ in rows.values():
        for c, _ in counts.most_common():
            if c not in cats:
                cats.append(c)
    names = list(rows)
    print("ms per step (samples / rate / steps, warmup step included; py-spy adds its own "
          "overhead, compare the modes with each other)")
    print(f"{'category':48s}" + "".join(f"{n:>16s}" for n in names))
    for c in cats:
        vals = []
        for n in names:
            counts, steps = rows[n]
            vals.append(1000 * counts.get(c, 0) / args.rate / (steps or 1))
        print(f"{c:48s}" + "".join(f"{v:16.1f}" for v in vals))
    tot = []
    for n in names:
        counts, steps = rows[n]
        tot.append(1000 * sum(counts.values()) / args.rate / (steps or 1))
    print(f"{'total, main thread':48s}" + "".join(f"{v:16.1f}" for v in tot))


if __name__ == "__main__":
    main()
