"""Regenerates tests/fixtures/free_benchmark_1.2.1 with the ORIGINAL msprobe 1.2.1:

    python3 tests/free_benchmark/make_original_fixtures.py --python /path/to/venv/bin/python [NAME ...]

For every case of cases.json: writes the config (task free_benchmark, level L1, the case's
free_benchmark section) into a fresh temporary working directory, runs fb_model.py there with
`--pg` (a one-process gloo group: 1.2.1 writes no rows at all without one on torch 2.x) and the
case's arguments, and copies dump/free_benchmark.csv (or nothing, when it wrote no row) into
<out>/<NAME>/, with the script's stdout (losses, digests) as stdout.txt.
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "tests", "fixtures", "free_benchmark_1.2.1")


def load_cases():
    with open(os.path.join(HERE, "cases.json")) as f:
        return {k: v for k, v in json.load(f).items() if not k.startswith("_")}


def config_of(case):
    return {"task": "free_benchmark", "dump_path": "./dump", "rank": [], "step": [], "level": "L1",
            "free_benchmark": case["section"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True, help="the interpreter of the venv holding msprobe 1.2.1")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    cases = load_cases()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for name in a.names or sorted(cases):
        case = cases[name]
        with tempfile.TemporaryDirectory() as cwd:
            with open(os.path.join(cwd, "config.json"), "w") as f:
                json.dump(config_of(case), f)
            proc = subprocess.run([a.python, os.path.join(HERE, "fb_model.py"), "config.json", "--pg", *case["args"]],
                                  cwd=cwd, env=env, capture_output=True, text=True, check=True)
            dest = os.path.join(OUT, name)
            shutil.rmtree(dest, ignore_errors=True)
            os.makedirs(dest)
            csv = os.path.join(cwd, "dump", "free_benchmark.csv")
            if os.path.exists(csv):
                shutil.copy(csv, os.path.join(dest, "free_benchmark.csv"))
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            with open(os.path.join(dest, "stdout.txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
        kept = os.path.join(dest, "free_benchmark.csv")
        print(name, "rows:", sum(1 for _ in open(kept)) - 1 if os.path.exists(kept) else 0)


if __name__ == "__main__":
    main()
