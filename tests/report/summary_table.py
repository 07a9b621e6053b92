"""A statistics compare table of two dumps in 1.2.1's layout, for the report's tests only: it
stands in for the C++ compare engine until the report is wired to it (exact-name matching, no
fuzzy or cross-framework mapping). Each test that uses it also checks the page against it."""
import json
import math

HEADER = ["NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape",
          "Bench Tensor Shape", "Max diff", "Min diff", "Mean diff", "L2norm diff",
          "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr",
          "NPU max", "NPU min", "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean",
          "Bench l2norm", "Result", "Err_message"]
_KEYS = (("input_args", ".input"), ("input_kwargs", ".input"), ("input", ".input"),
         ("output", ".output"), ("parameters", ".parameters"))


def flatten(dump_json):
    """{row name: (dtype, shape, [max, min, mean, norm])} in dump order."""
    with open(dump_json) as f:
        data = json.load(f)["data"]
    rows = {}

    def walk(name, v, grad):
        if v is None:
            return
        if isinstance(v, list):
            for i, x in enumerate(v):
                walk(name if grad else f"{name}.{i}", x, grad)
        elif isinstance(v, dict):
            if isinstance(v.get("type"), str):
                if "dtype" in v:
                    stats = [v.get(k) for k in ("Max", "Min", "Mean", "Norm")]
                    rows[name] = (v["dtype"], str(v.get("shape")), stats)
                else:
                    val = v.get("value")
                    num = val if isinstance(val, (int, float)) and not isinstance(val, bool) else None
                    rows[name] = (str(type(val)), "[]", [num, num, num, None])
                return
            for k, x in v.items():
                walk(f"{name}.{k}", x, grad)

    for entry, record in data.items():
        if ".parameters_grad" in entry:
            walk(entry, record, True)
            continue
        for key, suffix in _KEYS:
            if key in record:
                walk(entry + suffix, record[key], False)
    return rows


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def summary_table(npu_json, bench_json):
    """(header, rows, fills) as 1.2.1's summary compare would give them."""
    npu, bench = flatten(npu_json), flatten(bench_json)
    rows, fills = [], []
    for name, (dtype, shape, s) in npu.items():
        b = bench.get(name)
        if b is None:
            rows.append([name, "N/A", dtype, "N/A", shape, "N/A"] + ["N/A"] * 8 + s +
                        ["N/A"] * 4 + ["", "Bench does not have data file."])
            fills.append("")
            continue
        bdtype, bshape, bs = b
        diffs, rels, warn = [], [], False
        for x, y in zip(s, bs):
            if _num(x) and _num(y):
                d = x - y
                diffs.append(d)
                rels.append("N/A" if y == 0 else f"{abs(d / y) * 100}%")
                if abs(d) / (max(abs(x), abs(y)) + 1e-10) > 0.5:
                    warn = True
            else:
                diffs.append("N/A")
                rels.append("N/A")
        red = any(_num(x) and not math.isfinite(x) for x in s[:2])
        rows.append([name, name, dtype, bdtype, shape, bshape] + diffs + rels + s + bs +
                    ["Warning" if warn else "", "Need double check api accuracy." if warn else ""])
        fills.append("red" if red else "yellow" if warn else "")
    return HEADER, rows, fills
