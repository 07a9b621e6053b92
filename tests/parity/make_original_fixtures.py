"""Regenerate tests/fixtures/original_1.2.1 with the ORIGINAL msprobe 1.2.1.

    python3 tests/parity/make_original_fixtures.py --python ../orig/bin/python [NAME ...]

For every configs/<name>.json: run parity_model.py in a fresh temporary working directory with
the given interpreter (which must have mindstudio-probe 1.2.1 installed), then copy
dump/step*/rank*/{dump,stack,construct}.json into <out>/<name>/step*/rank*/.

The only change made to the JSON files is a textual replacement of absolute paths:
  <temporary working directory>   -> {CWD}
  <site-packages of the run venv> -> {SITE_PACKAGES}
  <this directory (tests/parity)> -> {PARITY_DIR}
Everything else (key order, indentation, number formatting) is byte-for-byte the original's.

For configs whose task is "tensor" the sorted list of files under dump_tensor_data is written
to <out>/<name>/step*/rank*/tensor_files.txt, and only the files named in KEEP_TENSORS are
copied, from step0 only.
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
CONFIG_DIR = os.path.join(HERE, "configs")
DEFAULT_OUT = os.path.join(REPO, "tests", "fixtures", "original_1.2.1")
JSON_FILES = ("dump.json", "stack.json", "construct.json")
# a keyword argument (a parameter), a backward output, a 0-dim int64 output
KEEP_TENSORS = {
    "Functional.linear.4.forward.kwargs.weight.pt",
    "Functional.linear.4.backward.output.0.pt",
    "Tensor.sum.0.forward.output.0.pt",
}
KEEP_TENSORS_STEP = "step0"


def site_packages(python):
    code = "import os, torch; print(os.path.dirname(os.path.dirname(os.path.realpath(torch.__file__))))"
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def normalise(text, cwd, site):
    for real, placeholder in ((cwd, "{CWD}"), (site, "{SITE_PACKAGES}"), (HERE, "{PARITY_DIR}")):
        text = text.replace(real, placeholder)
    return text


def copy_rank_dir(src, dst, task, step, cwd, site):
    os.makedirs(dst, exist_ok=True)
    for fname in JSON_FILES:
        path = os.path.join(src, fname)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            text = f.read()
        with open(os.path.join(dst, fname), "w") as f:
            f.write(normalise(text, cwd, site))
    tensor_dir = os.path.join(src, "dump_tensor_data")
    if task != "tensor" or not os.path.isdir(tensor_dir):
        return
    files = sorted(os.listdir(tensor_dir))
    with open(os.path.join(dst, "tensor_files.txt"), "w") as f:
        f.write("".join(fn + "\n" for fn in files))
    if step != KEEP_TENSORS_STEP:
        return
    for fn in files:
        if fn in KEEP_TENSORS:
            os.makedirs(os.path.join(dst, "dump_tensor_data"), exist_ok=True)
            shutil.copyfile(os.path.join(tensor_dir, fn), os.path.join(dst, "dump_tensor_data", fn))


def run_one(python, name, out_root, steps, site):
    config = os.path.join(CONFIG_DIR, name + ".json")
    with open(config) as f:
        task = json.load(f).get("task")
    with tempfile.TemporaryDirectory(prefix="msprobe_orig_") as tmp:
        tmp = os.path.realpath(tmp)
        proc = subprocess.run([python, os.path.join(HERE, "parity_model.py"), "--config", config,
                               "--steps", str(steps)], cwd=tmp, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            raise SystemExit(f"{name}: run failed with exit code {proc.returncode}")
        losses = [line for line in proc.stdout.splitlines() if line.startswith("step ")]
        dump_root = os.path.join(tmp, "dump")
        dest_root = os.path.join(out_root, name)
        shutil.rmtree(dest_root, ignore_errors=True)
        for step in sorted(os.listdir(dump_root)):
            for rank in sorted(os.listdir(os.path.join(dump_root, step))):
                copy_rank_dir(os.path.join(dump_root, step, rank),
                              os.path.join(dest_root, step, rank), task, step, tmp, site)
        print(f"{name}: {' | '.join(losses)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default="../orig/bin/python")
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("names", nargs="*", help="config names (default: all in configs/)")
    args = parser.parse_args()
    names = args.names or sorted(fn[:-5] for fn in os.listdir(CONFIG_DIR) if fn.endswith(".json"))
    site = site_packages(args.python)
    for name in names:
        run_one(args.python, name, args.out, args.steps, site)


if __name__ == "__main__":
    main()
