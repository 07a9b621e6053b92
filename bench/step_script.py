"""What the one-configuration-per-process step scripts (gpt_step.py for PyTorch, ms_decoder_step.py
for MindSpore) share: their command line, work folder, config file, which msprobe the interpreter
imports, the timed loop and the result's common fields. Standard library only: the scripts also
run in the original 1.2.1's virtual environments."""
import atexit
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time


def add_step_arguments(ap, modes):
    ap.add_argument("--mode", choices=modes, required=True)
    ap.add_argument("--steps", type=int, default=5, help="timed steps")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps before the timed ones")
    ap.add_argument("--dump-dir", default=None,
                    help="work folder for config.json and the dump (kept; the caller removes it). "
                         "Default: a temporary folder removed at exit")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--out", required=True, help="result JSON file")


def work_folder(dump_dir, prefix):
    """(work folder, dump path inside it); without --dump-dir a temporary folder removed at exit."""
    work = dump_dir
    if work is None:
        work = tempfile.mkdtemp(prefix=prefix)
        # Registered before the debugger's own exit handler, so it runs after the final flush.
        atexit.register(shutil.rmtree, work, True)
    os.makedirs(work, exist_ok=True)
    return work, os.path.join(work, "dump")


def write_config(path, cfg):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
    with os.fdopen(fd, "w") as f:
        json.dump(cfg, f, indent=2)


def msprobe_package():
    """("ours" | "original" | "none", msprobe's folder or None): which msprobe this interpreter
    would import, found without running the framework's side of it."""
    spec = importlib.util.find_spec("msprobe")
    if spec is None:
        return "none", None
    return ("ours" if importlib.util.find_spec("msprobe._core") else "original"), os.path.dirname(spec.origin)


def debugger_for(mode, framework, cfg_path, write):
    """None in mode "none" (msprobe is not even imported); otherwise the PrecisionDebugger of
    `framework` ("msprobe.pytorch", "msprobe.mindspore") on the config that write(cfg_path) writes."""
    if mode == "none":
        return None
    precision_debugger = importlib.import_module(framework).PrecisionDebugger
    write(cfg_path)
    return precision_debugger(config_path=cfg_path)


def timed_steps(batches, step, loss_value):
    """Runs step(batch) for every batch: (wall times, process CPU times, losses). loss_value turns
    what a step returns into a float after its time is taken."""
    step_times, step_cpu, losses = [], [], []
    for batch in batches:
        c0 = time.process_time()
        t0 = time.perf_counter()
        loss = step(batch)
        t1 = time.perf_counter()
        c1 = time.process_time()
        step_times.append(t1 - t0)
        step_cpu.append(c1 - c0)
        losses.append(loss_value(loss))
    return step_times, step_cpu, losses


def step_result(args, package, msprobe_dir, step_times, step_cpu, losses, setup_s, **extra):
    """The result JSON's fields: warmup and timed steps apart, wall and CPU time (CPU time of the
    whole process, all threads: less sensitive than wall time to other jobs on a shared machine)."""
    result = {
        "mode": args.mode,
        "package": package,
        "msprobe_dir": msprobe_dir,
        "python": sys.executable,
        "warmup": args.warmup,
        "steps": args.steps,
        "warmup_times_s": step_times[:args.warmup],
        "step_times_s": step_times[args.warmup:],
        "warmup_cpu_s": step_cpu[:args.warmup],
        "step_cpu_s": step_cpu[args.warmup:],
        "losses": losses,
        "setup_s": setup_s,
    }
    result.update(extra)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


def split_paired(args, step_times, step_cpu):
    """Probe on in even steps, off in odd ones (after the warmup): (on wall times with the warmup's
    first, on CPU times likewise, {"off_times_s", "off_cpu_s"}); args.steps becomes the on count."""
    on = [i for i in range(len(step_times)) if i >= args.warmup and i % 2 == 0]
    off = [i for i in range(len(step_times)) if i >= args.warmup and i % 2 == 1]
    extra = {"off_times_s": [step_times[i] for i in off], "off_cpu_s": [step_cpu[i] for i in off]}
    args.steps = len(on)
    return (step_times[:args.warmup] + [step_times[i] for i in on],
            step_cpu[:args.warmup] + [step_cpu[i] for i in on], extra)
