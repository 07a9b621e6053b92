"""Regenerate tests/fixtures/original_1.2.1_mindspore/real_cells with the ORIGINAL msprobe 1.2.1.

    python3 tests/mindspore/make_real_cells_fixtures.py --python ../orig121ms/bin/python

Runs real_cells_net.py (MSPROBE_ORIGINAL_SHIM=1) for every case in CASES in a fresh temporary
folder and writes <model>_<level>.json: the losses the script printed and, per step, the dump.json
entry names in order and construct.json. A case where 1.2.1 fails is written as {"error": the
last line of its output}.
"""
import argparse
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "fixtures", "original_1.2.1_mindspore", "real_cells")
# (model, level, extra arguments)
CASES = [("lstm", level, ()) for level in ("L0", "L1", "mix")] + \
        [("transformer", level, ("--plain-seed",)) for level in ("L0", "L1", "mix")] + \
        [("transformer", "mix", ())]


def case_name(model, level, extra):
    return f"{model}_{level}" + ("_plain_seed" if extra else "")


def run_case(python, model, level, extra):
    with tempfile.TemporaryDirectory() as work:
        r = subprocess.run([python, os.path.join(HERE, "real_cells_net.py"), "--model", model,
                            "--level", level, *extra], cwd=work, capture_output=True, text=True,
                           env=dict(os.environ, MSPROBE_ORIGINAL_SHIM="1"))
        if r.returncode != 0:
            return {"error": (r.stderr.strip().splitlines() or ["?"])[-1]}
        out = {"losses": [line for line in r.stdout.splitlines() if line.startswith("step ")],
               "steps": {}}
        for step in sorted(os.listdir(os.path.join(work, "dump"))):
            rank = os.path.join(work, "dump", step, "rank")
            with open(os.path.join(rank, "dump.json")) as f:
                entries = list(json.load(f)["data"])
            with open(os.path.join(rank, "construct.json")) as f:
                construct = json.load(f)
            out["steps"][step] = {"entries": entries, "construct": construct}
        return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--python", required=True, help="an interpreter with mindstudio-probe 1.2.1")
    args = p.parse_args()
    os.makedirs(OUT, exist_ok=True)
    for model, level, extra in CASES:
        result = run_case(args.python, model, level, extra)
        with open(os.path.join(OUT, case_name(model, level, extra) + ".json"), "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
        print(case_name(model, level, extra), result.get("error", "ok"))


if __name__ == "__main__":
    main()
