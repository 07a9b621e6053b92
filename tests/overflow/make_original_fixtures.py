"""Regenerates tests/fixtures/original_1.2.1_overflow with the ORIGINAL msprobe 1.2.1.

    python3 tests/overflow/make_original_fixtures.py --python /path/to/venv/bin/python [NAME ...]

For every case of cases.json: writes its config into a fresh temporary working directory, runs
overflow_model.py there with the given interpreter (mindstudio-probe 1.2.1 installed, no
PYTHONPATH), then copies dump/step*/rank*/{dump,stack,construct}.json into <out>/<name>/ and
lists the files of dump_tensor_data in tensor_files.txt. The only change to the JSON files is
the textual replacement of absolute paths ({CWD}, {SITE_PACKAGES}, {OVERFLOW_DIR}); the
interpreter's stdout (losses, parameter digest) goes to <out>/<name>/stdout.txt.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(REPO, "tests", "fixtures", "original_1.2.1_overflow")
JSON_FILES = ("dump.json", "stack.json", "construct.json")


def site_packages(python):
    code = "import os, torch; print(os.path.dirname(os.path.dirname(os.path.realpath(torch.__file__))))"
    return subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout.strip()


def normalise(text, cwd, site):
    for real, placeholder in ((cwd, "{CWD}"), (site, "{SITE_PACKAGES}"), (HERE, "{OVERFLOW_DIR}")):
        text = text.replace(real, placeholder)
    return text


def run_one(python, name, case, out_root, site):
    with tempfile.TemporaryDirectory(prefix="msprobe_orig_") as tmp:
        tmp = os.path.realpath(tmp)
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump(case["config"], f)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        proc = subprocess.run([python, os.path.join(HERE, "overflow_model.py"), "--config", "config.json",
                               *case["args"]], cwd=tmp, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            raise SystemExit(f"{name}: run failed with exit code {proc.returncode}")
        dest_root = os.path.join(out_root, name)
        shutil.rmtree(dest_root, ignore_errors=True)
        os.makedirs(dest_root)
        with open(os.path.join(dest_root, "stdout.txt"), "w") as f:
            f.write("".join(ln + "\n" for ln in proc.stdout.splitlines() if ln.startswith(("step ", "params "))))
        dump_root = os.path.join(tmp, "dump")
        for step in sorted(os.listdir(dump_root)):
            for rank in sorted(os.listdir(os.path.join(dump_root, step))):
                src = os.path.join(dump_root, step, rank)
                dst = os.path.join(dest_root, step, rank)
                os.makedirs(dst)
                for fname in JSON_FILES:
                    with open(os.path.join(src, fname)) as f:
                        text = f.read()
                    with open(os.path.join(dst, fname), "w") as f:
                        f.write(normalise(text, tmp, site))
                files = sorted(os.listdir(os.path.join(src, "dump_tensor_data")))
                with open(os.path.join(dst, "tensor_files.txt"), "w") as f:
                    f.write("".join(fn + "\n" for fn in files))
        print(f"{name}: {proc.stdout.strip().splitlines()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", required=True, help="interpreter of the venv with the original")
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("names", nargs="*", help="case names (default: all of cases.json)")
    args = parser.parse_args()
    with open(os.path.join(HERE, "cases.json")) as f:
        cases = json.load(f)
    site = site_packages(args.python)
    for name in args.names or sorted(cases):
        run_one(args.python, name, cases[name], args.out, site)


if __name__ == "__main__":
    main()
