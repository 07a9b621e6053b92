"""The C++ compare engine (msprobe._core.compare_dumps) against the golden results of the ORIGINAL
msprobe 1.2.1 (tests/fixtures/compare_1.2.1, see its README): every cell as 1.2.1 writes it into
the xlsx (numbers as openpyxl stores them, %.16g), and every row's fill, for every recorded case
whose options the engine takes directly (the CLI around it is tested elsewhere)."""
import glob
import gzip
import json
import math
import os
import shlex

import pytest
from compare_deviations import paired_beyond_original
from conftest import TESTS_DIR

from msprobe import _core

FIX = os.path.join(TESTS_DIR, "fixtures", "compare_1.2.1")
FILLS = {None: "", "FFFF0000": "red", "00FFFF00": "yellow"}


def variants():
    out = []
    for args_txt in sorted(glob.glob(os.path.join(FIX, "*", "*", "args.txt"))):
        variant_dir = os.path.dirname(args_txt)
        out.append(pytest.param(variant_dir, id=os.path.relpath(variant_dir, FIX)))
    return out


def parse_args(variant_dir):
    """(framework, stack flag, fuzzy, mapping options) from the recorded command line."""
    with open(os.path.join(variant_dir, "args.txt")) as f:
        argv = shlex.split(f.read())
    framework = argv[argv.index("-f") + 1]
    rest = argv[argv.index("compare") + 1:]
    opts = {"stack": "-s" in rest, "fuzzy": "-f" in rest, "mapping": {}}
    flags = {"-am": "api_mapping", "-cm": "cell_mapping", "-dm": "data_mapping", "-lm": "layer_mapping"}
    for i, a in enumerate(rest):
        if a in flags:
            nxt = rest[i + 1] if i + 1 < len(rest) else None
            given = nxt is not None and not nxt.startswith("-")
            opts["mapping"][flags[a]] = os.path.join(os.path.dirname(variant_dir), nxt) if given else True
    return framework, opts


def golden_tables(variant_dir):
    """{output name: table} of the variant (or of the variant named in same_as.txt)."""
    same = os.path.join(variant_dir, "same_as.txt")
    if os.path.exists(same):
        with open(same) as f:
            variant_dir = os.path.join(os.path.dirname(variant_dir), f.read().strip())
    tables = {}
    for path in sorted(glob.glob(os.path.join(variant_dir, "compare_result*.json.gz"))):
        with gzip.open(path, "rt") as f:
            tables[os.path.basename(path)[:-len(".json.gz")]] = json.load(f)
    return tables


def dump_pairs(case_dir, compare_json):
    """[(output name, npu dump.json, bench dump.json, stack.json or None)] as 1.2.1 pairs them."""
    with open(compare_json) as f:
        cfg = json.load(f)
    npu = os.path.join(case_dir, cfg["npu_path"])
    bench = os.path.join(case_dir, cfg["bench_path"])
    if os.path.isfile(npu):
        stack = cfg.get("stack_path")
        return [("compare_result", npu, bench, os.path.join(case_dir, stack) if stack else None)]
    pairs = []
    for n_rank, b_rank in zip(sorted(os.listdir(npu)), sorted(os.listdir(bench))):
        pairs.append((f"compare_result_{n_rank}-{b_rank}", os.path.join(npu, n_rank, "dump.json"),
                      os.path.join(bench, b_rank, "dump.json"), None))
    return pairs


def same_cell(mine, gold):
    value, kind = gold
    if kind == "inlineStr" and value is None:
        return mine == ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not isinstance(mine, (int, float)) or isinstance(mine, bool):
            return False
        if isinstance(value, int) and isinstance(mine, int):
            return value == mine
        return float("%.16g" % mine) == value or (math.isnan(mine) and math.isnan(value))
    return mine == value


@pytest.mark.parametrize("variant_dir", variants())
def test_compare_matches_original(variant_dir):
    framework, opts = parse_args(variant_dir)
    case_dir = os.path.dirname(variant_dir)
    golden = golden_tables(variant_dir)
    pairs = dump_pairs(case_dir, os.path.join(variant_dir, "compare.json"))
    assert sorted(golden) == sorted(p[0] for p in pairs)
    for name, npu, bench, stack in pairs:
        mapper = None
        if opts["mapping"]:  # the mappers of the fixtures helper (-lm reads both dumps)
            from msprobe.core import compare_mappings
            mapper = compare_mappings.name_mapper(**opts["mapping"], npu_dump_json=npu,
                                                  bench_dump_json=bench)
        if stack:
            stack_mode = opts["stack"]
        else:  # no stack_path: 1.2.1 turns stack mode on when the NPU stack.json exists
            stack = os.path.join(os.path.dirname(npu), "stack.json")
            stack_mode = os.path.exists(stack)
        table = _core.compare_dumps(npu, bench, framework=framework, stack_mode=stack_mode,
                                    stack_path=stack if stack_mode else "",
                                    fuzzy_match=opts["fuzzy"], name_mapper=mapper, threads=2)
        gold = golden[name]
        assert table.header == gold["header"]
        rows = table.written_rows()
        assert len(rows) == len(gold["rows"])
        bad = []
        for i, (row, grow) in enumerate(zip(rows, gold["rows"])):
            if paired_beyond_original(grow["cells"][1][0], row[1], row[2], row[3]):
                continue
            for j, (cell, gcell) in enumerate(zip(row, grow["cells"])):
                if not same_cell(cell, gcell):
                    bad.append(f"row {i} {gold['header'][j]!r}: ours {cell!r}, 1.2.1 {gcell[0]!r}")
            if table.fills[i] != FILLS[grow["fill"]]:
                bad.append(f"row {i} fill: ours {table.fills[i]!r}, 1.2.1 {grow['fill']!r}")
        assert not bad, f"{name}: {len(bad)} differences, first: " + "; ".join(bad[:5])
