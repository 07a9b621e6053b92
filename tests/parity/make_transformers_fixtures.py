"""Regenerate tests/fixtures/original_1.2.1/transformers with the ORIGINAL msprobe 1.2.1.

    python3 tests/parity/make_transformers_fixtures.py --python ../orig121/bin/python [CASE ...]

CASE is FAMILY_LEVEL (e.g. `t5_mix`); default: every family x level of tiny_transformers.py.
Each case runs `tiny_transformers.py --family F --level L --steps 2` in a fresh temporary working
directory with the given interpreter (which must have mindstudio-probe 1.2.1 and transformers).

A case that runs writes <out>/F_L.json:
    {"family": F, "level": L, "losses": [loss of step 0, loss of step 1],
     "steps": {"step0": {"dump": [dump.json entry names, in order],
                         "construct": {construct.json as it is, in order}},
               "step1": the same for step1, or the string "step0" when it is equal to step0's}}
A case where the original fails writes no such file; its error (the last line of the traceback,
and the innermost frame of the traceback, paths relative to site-packages) goes to
<out>/crashes.json, which lists every failing case. Nothing else from the dump is kept (the
statistics depend on the machine's float arithmetic; the names and the tree do not).
"""
import argparse
import ast
import json
import os
import re
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "tiny_transformers.py")
DEFAULT_OUT = os.path.join(REPO, "tests", "fixtures", "original_1.2.1", "transformers")


def script_constants(*names):
    """Literal constants of tiny_transformers.py, read without importing torch or msprobe."""
    with open(SCRIPT) as f:
        tree = ast.parse(f.read())
    found = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
             if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
             and node.targets[0].id in names}
    return [found[n] for n in names]


FAMILIES, LEVELS = script_constants("FAMILIES", "LEVELS")
CASES = [f"{f}_{lv}" for f in FAMILIES for lv in LEVELS]


def losses_of(stdout):
    return [float(m.group(2)) for m in re.finditer(r"^loss (\d+) (\S+)$", stdout, re.M)]


def read_step(rank_dir):
    with open(os.path.join(rank_dir, "dump.json")) as f:
        names = list(json.load(f)["data"])
    with open(os.path.join(rank_dir, "construct.json")) as f:
        construct = json.load(f)
    return {"dump": names, "construct": construct}


def crash_of(stderr, site):
    """(last line of the traceback, innermost 'File ..., line N, in F' of it)."""
    lines = stderr.rstrip().splitlines()
    frames = [ln.strip() for ln in lines if ln.strip().startswith("File ")]
    where = frames[-1].replace(site + os.sep, "") if frames else ""
    return lines[-1] if lines else "", where


def run_case(python, case, steps, site):
    family, level = case.rsplit("_", 1)
    with tempfile.TemporaryDirectory(prefix="msprobe_orig_tf_") as tmp:
        proc = subprocess.run([python, SCRIPT, "--family", family, "--level", level,
                               "--steps", str(steps)], cwd=tmp, capture_output=True, text=True)
        if proc.returncode != 0:
            error, where = crash_of(proc.stderr, site)
            return None, {"error": error, "where": where}
        dump_root = os.path.join(tmp, "dump")
        steps_found = sorted(os.listdir(dump_root))
        fixture = {"family": family, "level": level, "losses": losses_of(proc.stdout), "steps": {}}
        first = None
        for step in steps_found:
            got = read_step(os.path.join(dump_root, step, "rank"))
            fixture["steps"][step] = got if first is None or got != first else "step0"
            first = got if first is None else first
        return fixture, None


def site_packages(python):
    code = "import os, torch; print(os.path.dirname(os.path.dirname(os.path.realpath(torch.__file__))))"
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def versions(python):
    code = ("import sys, torch, transformers, importlib.metadata as m; "
            "print(sys.version.split()[0], torch.__version__, transformers.__version__, "
            "m.version('mindstudio-probe'))")
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True)
    return dict(zip(("python", "torch", "transformers", "mindstudio-probe"), out.stdout.split()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default="../orig121/bin/python")
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("cases", nargs="*", help=f"default: all of {' '.join(CASES)}")
    args = parser.parse_args()
    args.python = os.path.abspath(args.python)  # the runs start in temporary directories
    for case in args.cases:
        if case not in CASES:
            raise SystemExit(f"unknown case {case}; known: {' '.join(CASES)}")
    os.makedirs(args.out, exist_ok=True)
    site = site_packages(args.python)
    crashes_path = os.path.join(args.out, "crashes.json")
    crashes = {}
    if args.cases and os.path.exists(crashes_path):
        with open(crashes_path) as f:
            crashes = json.load(f)["cases"]
    for case in args.cases or CASES:
        fixture, crash = run_case(args.python, case, args.steps, site)
        path = os.path.join(args.out, case + ".json")
        crashes.pop(case, None)
        if crash:
            crashes[case] = crash
            if os.path.exists(path):
                os.unlink(path)
            print(f"{case}: CRASH {crash['error']}  ({crash['where']})", flush=True)
            continue
        with open(path, "w") as f:
            json.dump(fixture, f, indent=0)
            f.write("\n")
        counts = [len(s["dump"]) if isinstance(s, dict) else s for s in fixture["steps"].values()]
        print(f"{case}: losses {fixture['losses']} entries {counts}", flush=True)
    ordered = {c: crashes[c] for c in CASES if c in crashes}
    with open(crashes_path, "w") as f:
        json.dump({"versions": versions(args.python), "cases": ordered}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
