"""The steps of the loop that test_next_steps.py and test_workflow.py run as a user would: a
training run of tests/compare/fault_net.py, and `msprobe -f pytorch compare` of two dumps."""
import glob
import json
import os
import subprocess
import sys

FAULT_NET = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "compare", "fault_net.py")


def train(*args, cwd=None):
    subprocess.run([sys.executable, FAULT_NET, *args], check=True, capture_output=True, timeout=300, cwd=cwd)


def compare(npu_json, bench_json, out):
    """(divergence json, terminal output, report page) of one compare into `out`."""
    cfg = out + "_compare.json"
    with open(cfg, "w") as f:
        json.dump({"npu_path": npu_json, "bench_path": bench_json}, f)
    r = subprocess.run([sys.executable, "-m", "msprobe.cli", "-f", "pytorch", "compare", "-i", cfg, "-o", out],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    (div,) = glob.glob(os.path.join(out, "divergence_*.json"))
    (page,) = glob.glob(os.path.join(out, "compare_report_*.html"))
    with open(div) as f, open(page) as p:
        return json.load(f), r.stderr, p.read()
