"""Writes tests/fixtures/grad_probe_1.2.1/ with an interpreter that has msprobe 1.2.1:

    python tests/grad_probe/make_original_fixtures.py --python /work/orig121/bin/python

Each case of CASES runs tests/grad_probe/grad_net.py with its config in a fresh temporary folder
and keeps the dump folder (dump_path "./out") and the run's stdout. The "compare" case compares
the L2 run with the same run parted at step 3 (GradComparator.compare_distributed)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
NET = os.path.join(HERE, "grad_net.py")
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "grad_probe_1.2.1")

CASES = {
    "L0": {"step": [], "grad_probe": {"grad_level": "L0", "param_list": [], "bounds": [-1, 0, 1]}},
    "L1": {"step": [0, 2, 3], "grad_probe": {"grad_level": "L1", "param_list": ["fc1.weight", "fc2.bias"],
                                             "bounds": [-1, 0, 1]}},
    "L2": {"step": [], "grad_probe": {"grad_level": "L2", "param_list": [], "bounds": [-1, 0, 0.5]}},
}


def config_of(case):
    return dict({"task": "grad_probe", "dump_path": "./out", "rank": []}, **CASES[case])


def run_case(python, case, work, extra=()):
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(config_of(case), f)
    r = subprocess.run([python, NET, "--config", "config.json", *extra], cwd=work,
                       capture_output=True, text=True, check=True)
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--out", default=FIXTURES)
    args = ap.parse_args()
    for case in CASES:
        dst = os.path.join(args.out, case)
        shutil.rmtree(dst, ignore_errors=True)
        with tempfile.TemporaryDirectory() as work:
            stdout = run_case(args.python, case, work)
            shutil.copytree(os.path.join(work, "out"), os.path.join(dst, "out"))
            with open(os.path.join(dst, "stdout.txt"), "w") as f:
                f.write(stdout)
    dst = os.path.join(args.out, "compare")
    shutil.rmtree(dst, ignore_errors=True)
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "a"))
        os.makedirs(os.path.join(work, "b"))
        run_case(args.python, "L2", os.path.join(work, "a"))
        run_case(args.python, "L2", os.path.join(work, "b"), ("--perturb-step", "3"))
        subprocess.run([args.python, NET, "--compare", "a/out", "b/out", "result"], cwd=work,
                       capture_output=True, text=True, check=True)
        os.makedirs(dst)
        shutil.copytree(os.path.join(work, "result"), os.path.join(dst, "result"))
    # The pictures are matplotlib's; only their names are compared.
    for root, _, files in os.walk(args.out):
        for name in files:
            if name.endswith(".png"):
                open(os.path.join(root, name), "w").close()
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
