"""Regenerates the golden overflow_check dumps of the ORIGINAL msprobe 1.2.1:
tests/fixtures/original_1.2.1_overflow (PyTorch: cases.json, overflow_model.py) and, with
--framework mindspore, tests/fixtures/original_1.2.1_overflow_mindspore (ms_cases.json,
tests/mindspore/overflow_net.py, run with MSPROBE_ORIGINAL_SHIM=1).

    python3 tests/overflow/make_original_fixtures.py --python /path/to/venv/bin/python [NAME ...]

For every case: writes its config into a fresh temporary working directory, runs the script
there with the given interpreter (mindstudio-probe 1.2.1 importable, our PYTHONPATH removed),
then copies dump/step*/rank*/{dump,stack,construct}.json into <out>/<name>/ and lists the files
of dump_tensor_data in tensor_files.txt. The only change to the JSON files is the textual
replacement of absolute paths ({CWD}, {SITE_PACKAGES}, {MSPROBE_DIR}, {OVERFLOW_DIR}); the
losses and parameter digests the script prints go to <out>/<name>/stdout.txt.
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
FRAMEWORKS = {  # cases, script, output folder, package whose parent is {SITE_PACKAGES}
    "pytorch": ("cases.json", os.path.join(HERE, "overflow_model.py"),
                os.path.join(REPO, "tests", "fixtures", "original_1.2.1_overflow"), "torch"),
    "mindspore": ("ms_cases.json", os.path.join(REPO, "tests", "mindspore", "overflow_net.py"),
                  os.path.join(REPO, "tests", "fixtures", "original_1.2.1_overflow_mindspore"), "mindspore"),
}
JSON_FILES = ("dump.json", "stack.json", "construct.json")


def package_dirs(python, package, env):
    """(site-packages of `package`, folder of the msprobe package) as the interpreter sees them."""
    code = (f"import os, sys, {package}; print(os.path.dirname(os.path.dirname({package}.__file__)));"
            f"sys.path.insert(0, {os.path.join(REPO, 'tests', 'mindspore')!r});"
            "import importlib.util as u; print(os.path.dirname(u.find_spec('msprobe').origin))")
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True, env=env).stdout
    return out.split()


def normalise(text, cwd, site, msprobe_dir):
    for real, placeholder in ((cwd, "{CWD}"), (msprobe_dir, "{MSPROBE_DIR}"), (site, "{SITE_PACKAGES}"),
                              (HERE, "{OVERFLOW_DIR}"), (os.path.join(REPO, "tests"), "{TESTS_DIR}")):
        text = text.replace(real, placeholder)
    return text


def run_one(python, script, name, case, out_root, site, msprobe_dir, env):
    with tempfile.TemporaryDirectory(prefix="msprobe_orig_") as tmp:
        tmp = os.path.realpath(tmp)
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump(case["config"], f)
        proc = subprocess.run([python, script, "--config", "config.json", *case["args"]], cwd=tmp,
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            raise SystemExit(f"{name}: run failed with exit code {proc.returncode}")
        dest_root = os.path.join(out_root, name)
        shutil.rmtree(dest_root, ignore_errors=True)
        os.makedirs(dest_root)
        with open(os.path.join(dest_root, "stdout.txt"), "w") as f:
            f.write("".join(ln + "\n" for ln in proc.stdout.splitlines()
                            if ln.startswith(("step ", "params ", "values "))))
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
                        f.write(normalise(text, tmp, site, msprobe_dir))
                files = sorted(os.listdir(os.path.join(src, "dump_tensor_data")))
                with open(os.path.join(dst, "tensor_files.txt"), "w") as f:
                    f.write("".join(fn + "\n" for fn in files))
        print(f"{name}: {proc.stdout.strip().splitlines()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", required=True, help="interpreter of the venv with the original")
    parser.add_argument("--framework", choices=sorted(FRAMEWORKS), default="pytorch")
    parser.add_argument("--out", help="output folder (default: the framework's fixtures)")
    parser.add_argument("names", nargs="*", help="case names (default: all)")
    args = parser.parse_args()
    cases_file, script, out, package = FRAMEWORKS[args.framework]
    with open(os.path.join(HERE, cases_file)) as f:
        cases = json.load(f)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    if args.framework == "mindspore":
        env["MSPROBE_ORIGINAL_SHIM"] = "1"
    site, msprobe_dir = package_dirs(args.python, package, env)
    for name in args.names or sorted(cases):
        run_one(args.python, script, name, cases[name], args.out or out, site, msprobe_dir, env)


if __name__ == "__main__":
    main()
