"""Writes tests/fixtures/monitor_1.2.1/cc/ (cc_distribution) with an interpreter that has msprobe
1.2.1:

    python tests/monitor/make_cc_fixtures.py --python ../orig121/bin/python

Each case of CASES runs tests/monitor/monitor_cc_net.py on two gloo ranks (--as-121) with its
config in a fresh temporary folder and keeps {case}/config.json, {case}/stdout{R}.txt (the losses)
and {case}/rank{R}/other_*.csv (the rank folders "{time}-rank{R}-{id}" renamed), or with format
tensorboard {case}/rank{R}/tensorboard.json ({tag: [[step, value], ...]} read back with
tensorboard's EventAccumulator, as make_monitor_fixtures.py does), and {case}/anomaly_detected/
when the case dumps alerts."""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_monitor_fixtures import READ_TB  # noqa: E402
from monitor_cc_net import run_two_ranks  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "monitor_1.2.1", "cc")
ALL_OPS = ["min", "max", "norm", "zeros", "nans", "mean"]
CASES = {
    # Every collective of the run, before and after the calls, every op.
    "pre_hook": {"cc_distribution": {"enable": True, "cc_pre_hook": True}, "ops": ALL_OPS, "format": "csv"},
    # The calls of one function only (the gradients' all_reduce), after the calls.
    "codeline": {"cc_distribution": {"enable": True, "cc_codeline": ["average_gradients"]},
                 "ops": ["norm", "max"], "format": "csv"},
    # Alerts on the collectives' values, dumped.
    "alert": {"cc_distribution": {"enable": True}, "ops": ["norm", "max"], "format": "csv",
              "alert": {"rules": [{"rule_name": "AnomalyTurbulence", "args": {"threshold": 0.5}}], "dump": True}},
    # TensorBoard scalars of the same.
    "tensorboard": {"cc_distribution": {"enable": True, "cc_pre_hook": True}, "ops": ["norm", "mean"],
                    "format": "tensorboard"},
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--out", default=FIXTURES)
    args = ap.parse_args()
    python = os.path.abspath(args.python)
    for port, (case, config) in enumerate(CASES.items(), start=29661):
        dst = os.path.join(args.out, case)
        shutil.rmtree(dst, ignore_errors=True)
        os.makedirs(dst)
        with tempfile.TemporaryDirectory() as work:
            results = run_two_ranks(python, work, config, port, "--as-121", "--steps", "4")
            shutil.copy(os.path.join(work, "config.json"), dst)
            for rank, (code, out, err) in enumerate(results):
                if code != 0:
                    raise SystemExit(f"rank {rank} failed:\n{err}")
                with open(os.path.join(dst, f"stdout{rank}.txt"), "w") as f:
                    f.write("".join(line + "\n" for line in out.splitlines() if line.startswith("step ")))
                (rank_dir,) = glob.glob(os.path.join(work, "out", f"*-rank{rank}-*"))
                os.makedirs(os.path.join(dst, f"rank{rank}"))
                if config["format"] == "tensorboard":
                    tb = subprocess.run([python, "-c", READ_TB, rank_dir], capture_output=True, text=True,
                                        check=True)
                    with open(os.path.join(dst, f"rank{rank}", "tensorboard.json"), "w") as f:
                        f.write(tb.stdout)
                for path in sorted(glob.glob(os.path.join(rank_dir, "other_*.csv"))):
                    shutil.copy(path, os.path.join(dst, f"rank{rank}"))
            anomalies = os.path.join(work, "out", "anomaly_detected")
            if os.path.isdir(anomalies):
                shutil.copytree(anomalies, os.path.join(dst, "anomaly_detected"))


if __name__ == "__main__":
    main()
