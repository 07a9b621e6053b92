"""Writes tests/fixtures/monitor_1.2.1/ with an interpreter that has msprobe 1.2.1:

    python tests/monitor/make_monitor_fixtures.py --python ../orig121/bin/python

Each case of CASES runs tests/monitor/monitor_net.py (--as-121: the arguments 1.2.1 needs on plain
PyTorch) with its config in a fresh temporary folder, MONITOR_OUTPUT_DIR=out, and keeps:
  {case}/config.json, {case}/stdout.txt (the losses),
  {case}/rank0/*.csv          the rank folder ("{time}-rank0-{id}" renamed: its name changes),
  {case}/anomaly_detected/    when the case dumps alerts,
  {case}/anomaly_analyse.json 1.2.1's anomaly_analyse of them (-k 5),
  {case}/tensorboard.json     format tensorboard: {tag: [[step, value], ...]} read back with
                              tensorboard's EventAccumulator.
and csv2tb.json: 1.2.1's csv2tensorboard_by_step of all/rank0 (in a folder named
"Dec03_21-34-40-rank0-00000000"), {data_type: {tag: [[step, value], ...]}} read back the same way.
--only csv2tb makes that file alone, --only CASE one case; and print_struct/module_struct.json: 1.2.1's print_struct
file of the same model (1.2.1 then stops the run with an exception), --only print_struct; and
zero2/, zero3/: the DeepSpeed ZeRO stand-ins of zero_net.py on two gloo ranks ({case}/rank0,
{case}/rank1, config.json, rank 0's stdout.txt), --only zero2 / zero3."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
NET = os.path.join(HERE, "monitor_net.py")
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "monitor_1.2.1")

ALERT = {"rules": [{"rule_name": "AnomalyTurbulence", "args": {"threshold": 0.5}}], "dump": True}
CASES = {
    # Everything, every step, Adam.
    "all": ({"xy_distribution": True, "wg_distribution": True, "mv_distribution": True, "param_distribution": True,
             "ops": ["min", "max", "norm", "zeros", "nans", "mean"], "format": "csv", "alert": ALERT},
            ["--optim", "adam", "--steps", "4"]),
    # Chosen modules and parameters, some steps, files of two steps, SGD.
    "targets": ({"targets": {"block.fc1": {}, "head": {"input": "tuple[1]:0", "output": "tensor"}},
                 "xy_distribution": True, "wg_distribution": True, "ops": ["norm", "max", "min", "zeros"],
                 "eps": 0.01, "ndigits": 3, "step_interval": 2, "start_step": 1, "collect_times": 2,
                 "step_count_per_record": 2, "format": "csv"},
                ["--optim", "sgd", "--steps", "6"]),
    # Forward only, AdamW with its moments, TensorBoard.
    "tensorboard": ({"xy_distribution": True, "forward_only": True, "mv_distribution": True,
                     "ops": ["norm", "mean"], "format": "tensorboard"},
                    ["--optim", "adamw", "--steps", "3"]),
    # Two micro-batches per step: activations of each ("_0", "_1"), the accumulated weight
    # gradients, Adam.
    "grad_acc": ({"xy_distribution": True, "wg_distribution": True, "mv_distribution": True,
                  "ops": ["min", "max", "norm", "mean"], "format": "csv"},
                 ["--optim", "adam", "--steps", "3", "--grad-acc", "2"]),
}

# DeepSpeed ZeRO stand-ins (zero_net.py) on two gloo ranks: the moments and gradients of the flat
# fp32 partitions; {case}/rank0, {case}/rank1.
ZERO_CONFIG = {"wg_distribution": True, "mv_distribution": True, "ops": ["min", "max", "norm", "mean"],
               "format": "csv"}
ZERO_CASES = {"zero2": ["--stage", "2", "--steps", "3"], "zero3": ["--stage", "3", "--steps", "3"]}

READ_TB = """
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
acc = EventAccumulator(sys.argv[1]); acc.Reload()
print(json.dumps({t: [[e.step, e.value] for e in acc.Scalars(t)] for t in sorted(acc.Tags()["scalars"])}))
"""
CSV2TB_RUN = "Dec03_21-34-40-rank0-00000000"
CSV2TB = """
import json, os, sys
from msprobe.pytorch.monitor.csv2tb import csv2tensorboard_by_step
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
csv2tensorboard_by_step(sys.argv[1], time_start="Dec03_21-34-40", time_end="Dec03_21-34-40", output_dirpath=sys.argv[2])
out = {}
for data_type in sorted(os.listdir(os.path.join(sys.argv[2], "rank0"))):
    acc = EventAccumulator(os.path.join(sys.argv[2], "rank0", data_type)); acc.Reload()
    out[data_type] = {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in sorted(acc.Tags()["scalars"])}
print(json.dumps(out))
"""


def csv2tb_golden(python, fixtures, out_path):
    with tempfile.TemporaryDirectory() as work:
        shutil.copytree(os.path.join(fixtures, "all", "rank0"), os.path.join(work, "runs", CSV2TB_RUN))
        r = subprocess.run([python, "-c", CSV2TB, os.path.join(work, "runs"), os.path.join(work, "tb")],
                           capture_output=True, text=True, check=True)
    with open(out_path, "w") as f:
        json.dump(json.loads(r.stdout.splitlines()[-1]), f, indent=1)


PRINT_STRUCT = {"print_struct": True, "xy_distribution": True, "format": "csv"}


def struct_golden(python, dst):
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "config.json"), "w") as f:
            json.dump(PRINT_STRUCT, f)
        # 1.2.1 raises "exit after first monitor step when print model struct": not checked.
        subprocess.run([python, NET, "--config", "config.json", "--as-121"], cwd=work, capture_output=True,
                       env=dict(os.environ, MONITOR_OUTPUT_DIR="out"))
        shutil.copy(os.path.join(work, "out", "module_struct.json"), dst)


def fresh_case(dst, config):
    """An empty case folder with its config.json."""
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    with open(os.path.join(dst, "config.json"), "w") as f:
        json.dump(config, f, indent=1)


def zero_golden(python, dst, net_args, port):
    from zero_net import run_ranks
    fresh_case(dst, ZERO_CONFIG)
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(os.path.join(dst, "config.json"), work)
        outs = run_ranks(python, work, [*net_args, "--config", "config.json", "--as-121"], port)
        with open(os.path.join(dst, "stdout.txt"), "w") as f:
            f.write(outs[0])
        for rank in range(len(outs)):
            (rank_dir,) = glob.glob(os.path.join(work, "out", f"*-rank{rank}-*"))
            shutil.copytree(rank_dir, os.path.join(dst, f"rank{rank}"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--out", default=FIXTURES)
    ap.add_argument("--only", choices=["csv2tb", "print_struct", *CASES, *ZERO_CASES])
    args = ap.parse_args()
    python = os.path.abspath(args.python)
    for case, (config, net_args) in CASES.items():
        if args.only and args.only != case:
            continue
        dst = os.path.join(args.out, case)
        fresh_case(dst, config)
        with tempfile.TemporaryDirectory() as work:
            shutil.copy(os.path.join(dst, "config.json"), work)
            env = dict(os.environ, MONITOR_OUTPUT_DIR="out")
            r = subprocess.run([python, NET, "--config", "config.json", "--as-121", *net_args], cwd=work,
                               capture_output=True, text=True, check=True, env=env)
            with open(os.path.join(dst, "stdout.txt"), "w") as f:
                f.write(r.stdout)
            (rank_dir,) = glob.glob(os.path.join(work, "out", "*-rank0-*"))
            if config["format"] == "tensorboard":
                tb = subprocess.run([python, "-c", READ_TB, rank_dir], capture_output=True, text=True, check=True)
                with open(os.path.join(dst, "tensorboard.json"), "w") as f:
                    json.dump(json.loads(tb.stdout), f, indent=1)
            else:
                shutil.copytree(rank_dir, os.path.join(dst, "rank0"))
            anomalies = os.path.join(work, "out", "anomaly_detected")
            if os.path.isdir(anomalies):
                shutil.copytree(anomalies, os.path.join(dst, "anomaly_detected"))
                subprocess.run([python, "-m", "msprobe.pytorch.monitor.anomaly_analyse", "-d", anomalies, "-k", "5"],
                               cwd=work, capture_output=True, text=True, check=True)
                shutil.copy(os.path.join(anomalies, "anomaly_analyse.json"), dst)
    if args.only in (None, "csv2tb"):
        csv2tb_golden(python, args.out, os.path.join(args.out, "csv2tb.json"))
    if args.only in (None, "print_struct"):
        struct_golden(python, os.path.join(args.out, "print_struct"))
    for port, (case, net_args) in enumerate(ZERO_CASES.items(), 29650):
        if args.only in (None, case):
            zero_golden(python, os.path.join(args.out, case), net_args, port)


if __name__ == "__main__":
    main()
