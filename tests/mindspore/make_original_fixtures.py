"""Regenerates tests/fixtures/original_1.2.1_mindspore: runs parity_net.py with the ORIGINAL
msprobe 1.2.1 once per config in configs/, each in a fresh temporary directory, and keeps
dump.json, stack.json, construct.json, a listing of dump_tensor_data and (for tensor tasks) the
.npy files. Usage:
    python tests/mindspore/make_original_fixtures.py --python ../orig_ms/bin/python"""
import argparse
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "fixtures", "original_1.2.1_mindspore")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--python", required=True, help="interpreter of the venv with the original")
    p.add_argument("--steps", type=int, default=2)
    args = p.parse_args()
    for cfg in sorted(f for f in os.listdir(os.path.join(HERE, "configs")) if f.endswith(".json")):
        name = cfg[:-5]
        with tempfile.TemporaryDirectory() as work:
            env = dict(os.environ, MSPROBE_ORIGINAL_SHIM="1")
            env.pop("PYTHONPATH", None)
            r = subprocess.run([args.python, os.path.join(HERE, "parity_net.py"), "--config",
                                os.path.join(HERE, "configs", cfg), "--steps", str(args.steps)],
                               cwd=work, env=env, capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"{name}: exit {r.returncode}\n{r.stderr[-3000:]}")
            dest = os.path.join(OUT, name)
            shutil.rmtree(dest, ignore_errors=True)
            losses = [line for line in r.stdout.splitlines() if line.startswith("step ")]
            src_root = os.path.join(work, "dump")
            for dirpath, _, files in os.walk(src_root):
                if "dump.json" not in files:
                    continue
                rel = os.path.relpath(dirpath, src_root)
                target = os.path.join(dest, rel)
                os.makedirs(target)
                for f in ("dump.json", "construct.json"):
                    shutil.copy(os.path.join(dirpath, f), target)
                copy_with_placeholders(os.path.join(dirpath, "stack.json"), os.path.join(target, "stack.json"),
                                       args.python)
                data = os.path.join(dirpath, "dump_tensor_data")
                if os.path.isdir(data):
                    names = sorted(os.listdir(data))
                    with open(os.path.join(target, "tensor_files.txt"), "w") as f:
                        f.write("".join(n + "\n" for n in names))
                    shutil.copytree(data, os.path.join(target, "dump_tensor_data"))
            with open(os.path.join(dest, "losses.txt"), "w") as f:
                f.write("\n".join(losses) + "\n")
            print(name, losses)


def copy_with_placeholders(src, dst, python):
    """stack.json with the machine's folders named by placeholders: {TESTS_DIR} for
    tests/mindspore, {SITE_PACKAGES} for the original's venv (the parity test compares keys)."""
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(src) as f:
        text = f.read()
    with open(dst, "w") as f:
        f.write(text.replace(site, "{SITE_PACKAGES}").replace(HERE, "{TESTS_DIR}"))


if __name__ == "__main__":
    main()
