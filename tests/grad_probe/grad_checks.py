"""What the grad_probe tests of both frameworks check: the files of a run against 1.2.1's."""
import csv
import math
import os
import re

import numpy as np
from tolerances import ORIGINAL_RTOL, close, kernel_rtol


def digests(stdout):
    """{step: (loss, gradient digest)} from grad_net.py's lines."""
    return {int(m[1]): (m[2], m[3]) for m in re.finditer(r"^step (\d+) loss (\S+) grads (\w+)$", stdout, re.M)}


def read_csv(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.reader(f))


def files_under(root):
    return sorted(os.path.relpath(os.path.join(d, n), root) for d, _, names in os.walk(root) for n in names)


def assert_float_close(ours, golden, what):
    o, g = float(ours), float(golden)
    tol = max(ORIGINAL_RTOL, kernel_rtol("float32"))
    assert math.isclose(o, g, rel_tol=tol) or close(o, g, "float32"), f"{what}: {ours} vs {golden}"


def assert_files_as_original(ours_dir, golden_dir, ours_stdout, golden_stdout):
    """The same files; csv headers, names, shapes exact; MD5, shares, max/min and direction files
    bit for bit where the step's gradients are (the runs' digests agree), else within the kernel
    tolerance; norm within 1.2.1's float32 reduction's tolerance."""
    golden_steps, our_steps = digests(golden_stdout), digests(ours_stdout)
    assert files_under(ours_dir) == files_under(golden_dir)
    for rel in files_under(golden_dir):
        step = int(re.search(r"(?:grad_summary_|step)(\d+)", rel)[1])
        exact = our_steps[step][1] == golden_steps[step][1]   # the same gradients, bit for bit
        ours_path, golden_path = os.path.join(ours_dir, rel), os.path.join(golden_dir, rel)
        if rel.endswith(".npy"):
            a, b = np.load(ours_path, allow_pickle=False), np.load(golden_path, allow_pickle=False)
            assert a.dtype == b.dtype == np.bool_ and a.shape == b.shape
            if exact:
                assert open(ours_path, "rb").read() == open(golden_path, "rb").read(), rel
            continue
        with open(ours_path, "rb") as f:
            assert f.read(3) == b"\xef\xbb\xbf"  # utf-8-sig, as 1.2.1 writes it
        rows, golden = read_csv(ours_path), read_csv(golden_path)
        assert rows[0] == golden[0], rel
        assert [r[0] for r in rows] == [r[0] for r in golden]
        header = golden[0]
        for row, grow in zip(rows[1:], golden[1:]):
            assert len(row) == len(grow)
            for name, a, b in zip(header, row, grow):
                if name in ("param_name", "shape"):
                    assert a == b, (rel, name)
                elif name == "MD5" or not exact and (name.startswith("(") or name == "=0"):
                    assert not exact or a == b, (rel, name)
                elif name in ("max", "min") or name.startswith("(") or name == "=0":
                    assert a == b if exact else close(float(a), float(b), "float32"), (rel, name, a, b)
                else:   # norm: torch's float32 reduction against our double one
                    assert_float_close(a, b, f"{rel} {grow[0]} {name}")


def assert_similarities_as_original(ours_result, golden_result):
    """GradComparator's files: similarities.csv as 1.2.1's, the pictures' names, and our
    grad_divergence.json beside them."""
    extra = sorted(os.path.join(os.path.dirname(p), "grad_divergence.json")
                   for p in files_under(golden_result) if p.endswith("similarities.csv"))
    assert files_under(ours_result) == sorted(files_under(golden_result) + extra)
    for rel in files_under(golden_result):
        if rel.endswith(".csv"):
            assert_similarities_close(read_csv(os.path.join(ours_result, rel)),
                                      read_csv(os.path.join(golden_result, rel)), rel)


# After two runs' directions part, later steps follow different numerics, and the signs of a few
# near-zero gradient elements move with the CPU's kernels: each flips a share by 1/n (n = 24 for
# the test net's smallest weight). Up to the first step where the golden parts, the similarity
# shares must be equal; after it, within this many.
SIMILARITY_TOLERANCE_AFTER_PARTING = 0.1


def assert_similarities_close(ours, golden, rel):
    assert [r[0] for r in ours] == [r[0] for r in golden] and ours[0] == golden[0], rel
    parted = False
    for col in range(1, len(golden[0])):
        for row_ours, row_golden in zip(ours[1:], golden[1:]):
            a, b = float(row_ours[col]), float(row_golden[col])
            limit = SIMILARITY_TOLERANCE_AFTER_PARTING if parted else 0.0
            assert abs(a - b) <= limit, (rel, row_golden[0], golden[0][col], a, b)
        parted = parted or any(float(r[col]) < 1.0 for r in golden[1:])
