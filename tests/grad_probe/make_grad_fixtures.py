"""Writes tests/fixtures/grad_probe_1.2.1/ (PyTorch) or, with --framework mindspore,
tests/fixtures/grad_probe_1.2.1_mindspore/ with an interpreter that has msprobe 1.2.1:

    python tests/grad_probe/make_grad_fixtures.py --python ../orig121/bin/python
    python tests/grad_probe/make_grad_fixtures.py --framework mindspore --python ../orig121ms/bin/python

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
NETS = {"pytorch": os.path.join(HERE, "grad_net.py"), "mindspore": os.path.join(HERE, "grad_net_ms.py")}
FIXTURES = {"pytorch": os.path.join(os.path.dirname(HERE), "fixtures", "grad_probe_1.2.1"),
            "mindspore": os.path.join(os.path.dirname(HERE), "fixtures", "grad_probe_1.2.1_mindspore")}
# MindSpore: 1.2.1 runs on MindSpore 2.10 through tests/mindspore/orig_shim.py.
ENV = {"pytorch": {}, "mindspore": {"MSPROBE_ORIGINAL_SHIM": "1"}}

CASES = {
    "L0": {"step": [], "grad_probe": {"grad_level": "L0", "param_list": [], "bounds": [-1, 0, 1]}},
    "L1": {"step": [0, 2, 3], "grad_probe": {"grad_level": "L1", "param_list": ["fc1.weight", "fc2.bias"],
                                             "bounds": [-1, 0, 1]}},
    "L2": {"step": [], "grad_probe": {"grad_level": "L2", "param_list": [], "bounds": [-1, 0, 0.5]}},
}


def config_of(case):
    return dict({"task": "grad_probe", "dump_path": "./out", "rank": []}, **CASES[case])


def run_case(python, case, work, extra=(), framework="pytorch"):
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(config_of(case), f)
    r = subprocess.run([python, NETS[framework], "--config", "config.json", *extra], cwd=work,
                       capture_output=True, text=True, check=True, env=dict(os.environ, **ENV[framework]))
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--compare-python", help="the interpreter that runs GradComparator (default --python)")
    ap.add_argument("--framework", choices=sorted(NETS), default="pytorch")
    ap.add_argument("--out")
    args = ap.parse_args()
    fw = args.framework
    args.out = args.out or FIXTURES[fw]
    for case in CASES:
        dst = os.path.join(args.out, case)
        shutil.rmtree(dst, ignore_errors=True)
        with tempfile.TemporaryDirectory() as work:
            stdout = run_case(args.python, case, work, framework=fw)
            shutil.copytree(os.path.join(work, "out"), os.path.join(dst, "out"))
            with open(os.path.join(dst, "stdout.txt"), "w") as f:
                f.write(stdout)
    dst = os.path.join(args.out, "compare")
    shutil.rmtree(dst, ignore_errors=True)
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "a"))
        os.makedirs(os.path.join(work, "b"))
        run_case(args.python, "L2", os.path.join(work, "a"), framework=fw)
        run_case(args.python, "L2", os.path.join(work, "b"), ("--perturb-step", "3"), framework=fw)
        # The comparator is framework-free: 1.2.1's PyTorch venv compares both frameworks' files.
        subprocess.run([args.compare_python or args.python, NETS["pytorch"], "--compare", "a/out", "b/out",
                        "result"], cwd=work, capture_output=True, text=True, check=True)
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
