"""Regenerates tests/fixtures/free_benchmark_1.2.1_mindspore with the ORIGINAL msprobe 1.2.1:

    python3 tests/mindspore/make_original_fb_fixtures.py --python ../orig121ms/bin/python [NAME ...]

For every case of fb_cases.json: writes the config (task free_benchmark, level L1, the case's
free_benchmark section) into a fresh temporary working directory, runs fb_net.py there with
MSPROBE_ORIGINAL_SHIM=1 and the case's arguments, and copies dump/free_benchmark.csv (or nothing,
when it wrote no row) into <out>/<NAME>/, with the script's JSON lines (losses, digests) as
stdout.txt.
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "fixtures", "free_benchmark_1.2.1_mindspore")


def load_cases():
    with open(os.path.join(HERE, "fb_cases.json")) as f:
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
    env["MSPROBE_ORIGINAL_SHIM"] = "1"
    for name in a.names or sorted(cases):
        case = cases[name]
        with tempfile.TemporaryDirectory() as cwd:
            with open(os.path.join(cwd, "config.json"), "w") as f:
                json.dump(config_of(case), f)
            proc = subprocess.run([os.path.abspath(a.python), os.path.join(HERE, "fb_net.py"), "config.json",
                                   *case["args"]], cwd=cwd, env=env, capture_output=True, text=True, check=True)
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
