"""Regenerates tests/fixtures/original_1.2.1_mindspore_l2: for each case of
kernel_configs/cases.json, runs kernel_start.py with the ORIGINAL msprobe 1.2.1 in a fresh
temporary directory and keeps the dump configuration file it wrote (kernel_kbyk_dump.json or
kernel_graph_dump.json) and the environment it set (env.json). Usage:
    python tests/mindspore/make_original_kernel_fixtures.py --python ../orig_ms/bin/python"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "fixtures", "original_1.2.1_mindspore_l2")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--python", required=True, help="interpreter of the venv with the original")
    args = p.parse_args()
    with open(os.path.join(HERE, "kernel_configs", "cases.json")) as f:
        cases = json.load(f)
    for name, case in sorted(cases.items()):
        with tempfile.TemporaryDirectory() as work:
            with open(os.path.join(work, "config.json"), "w") as f:
                json.dump(case["config"], f)
            env = dict(os.environ, MSPROBE_ORIGINAL_SHIM="1")
            env.pop("PYTHONPATH", None)
            r = subprocess.run([args.python, os.path.join(HERE, "kernel_start.py"), case["mode"]],
                               cwd=work, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"{name}: exit {r.returncode}\n{r.stderr[-3000:]}")
            dest = os.path.join(OUT, name)
            shutil.rmtree(dest, ignore_errors=True)
            os.makedirs(dest)
            for fname in ("kernel_kbyk_dump.json", "kernel_graph_dump.json",
                          "kernel_graph_overflow_check.json"):
                src = os.path.join(work, "dump", fname)
                if os.path.exists(src):
                    # The absolute dump path differs per run: keep it as a placeholder.
                    with open(src) as f:
                        text = f.read().replace(json.dumps(os.path.join(os.path.realpath(work), "dump")),
                                                '"<dump_path>"')
                    with open(os.path.join(dest, fname), "w") as f:
                        f.write(text)
            line = [ln for ln in r.stdout.splitlines() if ln.startswith("ENV ")][-1]
            with open(os.path.join(dest, "env.json"), "w") as f:
                f.write(line[4:] + "\n")
            print(name, sorted(os.listdir(dest)), line[4:])


if __name__ == "__main__":
    main()
