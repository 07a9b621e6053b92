"""Our -am/-cm/-dm name mappings (C++, cpp/src/compare/mapping/name_mapping.cc) pair the rows the
original 1.2.1 paired in its MindSpore-vs-PyTorch compare results
(tests/fixtures/compare_1.2.1/xf_*, see its README): every row the original matched gets our key
equal to its bench name; every row it left unmatched has no bench row of our key, shape and
dtype. The row names of the dumps are flattened here the way 1.2.1 names rows."""
import gzip
import json
import os

import pytest
from conftest import TESTS_DIR

from msprobe.core import compare_mappings
from msprobe.core.errors import MsprobeException

FIX = os.path.join(TESTS_DIR, "fixtures", "compare_1.2.1")
TORCH_DTYPES = {"Float32": "torch.float32", "Float16": "torch.float16", "BFloat16": "torch.bfloat16",
                "Int64": "torch.int64", "Int32": "torch.int32", "Bool": "torch.bool"}


def rows_of(dump_json):
    """(row name, dtype, shape) of every flattened value, in dump order (1.2.1's read_op)."""
    with open(dump_json) as f:
        data = json.load(f)["data"]
    out = []

    def walk(node, name, in_grad):
        if node is None:
            out.append((name, None, None))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, name if in_grad else f"{name}.{i}", in_grad)
        elif isinstance(node, dict):
            if isinstance(node.get("type"), str):
                if node.get("dtype"):
                    out.append((name, node["dtype"], str(node.get("shape"))))
                elif node["type"] in ("torch.Size", "slice"):
                    out.append((name, node["type"], None))
                else:  # a Python value: 1.2.1 shows str(type(value)) and shape []
                    out.append((name, str(type(node.get("value"))), "[]"))
            else:
                for k, v in node.items():
                    walk(v, f"{name}.{k}", in_grad)

    for entry, record in data.items():
        if entry.endswith(".parameters_grad"):
            walk(record, entry, True)
            continue
        for key, suffix in (("input_args", "input"), ("input_kwargs", "input"), ("input", "input"),
                            ("output", "output"), ("parameters", "parameters")):
            if key in record:
                walk(record[key], f"{entry}.{suffix}", False)
    return out


def golden(case, variant):
    with gzip.open(os.path.join(FIX, case, variant, "compare_result.json.gz"), "rt") as f:
        table = json.load(f)
    return [[c[0] for c in r["cells"]] for r in table["rows"]]


def check_keys(case, variant, mapper):
    npu = rows_of(os.path.join(FIX, case, "npu", "step0", "rank", "dump.json"))
    bench = rows_of(os.path.join(FIX, case, "bench", "step0", "rank", "dump.json"))
    mapper.prepare([n for n, _, _ in npu], [n for n, _, _ in bench])
    bench_index = {(n, s): d for n, d, s in bench}
    npu_info = {n: (d, s) for n, d, s in npu}
    rows = golden(case, variant)
    matched = 0
    for row in rows:
        npu_name, bench_name = row[0], row[1]
        key = mapper.npu_key(npu_name)
        if bench_name != "N/A":
            assert key == bench_name, f"{npu_name}: ours {key}, 1.2.1 {bench_name}"
            matched += 1
        else:
            dtype, shape = npu_info[npu_name]
            bench_dtype = bench_index.get((key, shape), "absent")
            assert bench_dtype != TORCH_DTYPES.get(dtype, dtype), \
                f"{npu_name}: 1.2.1 left it unmatched, our key {key} finds a bench row"
    return matched, len(rows)


def test_api_mapping_matches_original_rows():
    matched, total = check_keys("xf_L1_statistics", "am", compare_mappings.api_mapper())
    assert matched > 60 and total > matched  # the golden's counts: 74 of 87


def test_user_api_mapping_matches_original_rows():
    mapper = compare_mappings.api_mapper(os.path.join(FIX, "xf_L1_statistics", "api_mapping.yaml"))
    matched, _ = check_keys("xf_L1_statistics", "am_user", mapper)
    assert matched > 60


def test_api_mapping_at_mix_level_matches_original_rows():
    check_keys("xf_mix_statistics", "am", compare_mappings.api_mapper())


@pytest.mark.parametrize("variant, table", [("cm", "cell_mapping.yaml"), ("cm_plain", None)])
def test_cell_mapping_matches_original_rows(variant, table):
    path = os.path.join(FIX, "xf_mix_statistics", table) if table else None
    matched, _ = check_keys("xf_mix_statistics", variant, compare_mappings.cell_mapper(path))
    assert matched > 0


@pytest.mark.parametrize("case", ["xf_L1_statistics", "xf_mix_statistics"])
def test_data_mapping_pairs_are_the_original_rows(case):
    mapper = compare_mappings.data_mapper(os.path.join(FIX, case, "data_mapping.yaml"))
    npu = {n for n, _, _ in rows_of(os.path.join(FIX, case, "npu", "step0", "rank", "dump.json"))}
    bench = {n for n, _, _ in rows_of(os.path.join(FIX, case, "bench", "step0", "rank", "dump.json"))}
    ours = [(a, b) for a, b in mapper.data_mapping() if a in npu and b in bench]
    assert ours == [(r[0], r[1]) for r in golden(case, "dm")]


@pytest.mark.parametrize("variant, table", [("lm", "layer_mapping.yaml"), ("lm_plain", None)])
def test_layer_mapping_gives_the_original_data_mapping(variant, table):
    case = os.path.join(FIX, "xf_mix_statistics")
    mapper = compare_mappings.layer_mapper(
        os.path.join(case, "npu", "step0", "rank", "dump.json"),
        os.path.join(case, "bench", "step0", "rank", "dump.json"),
        os.path.join(case, table) if table else None)
    # the data_mapping yaml 1.2.1 wrote beside its result (pyyaml keeps the file's order)
    with open(os.path.join(case, variant, "data_mapping.yaml")) as f:
        expected = [tuple(line.rstrip("\n").split(": ", 1)) for line in f if line.strip()]
    assert mapper.data_mapping() == expected
    assert len(expected) > 100


def test_name_mapper_precedence_and_errors(tmp_path):
    assert compare_mappings.name_mapper() is None
    dm = os.path.join(FIX, "xf_L1_statistics", "data_mapping.yaml")
    assert type(compare_mappings.name_mapper(cell_mapping=True, api_mapping=True,
                                             data_mapping=dm)).__name__ == "DataMapper"
    assert type(compare_mappings.name_mapper(cell_mapping=True, api_mapping=True)).__name__ \
        == "CellMapper"
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1,\n")
    with pytest.raises(MsprobeException, match=r"bad.yaml: not valid YAML \(line"):
        compare_mappings.cell_mapper(str(bad))
    with pytest.raises(MsprobeException, match="No such file"):
        compare_mappings.api_mapper(str(tmp_path / "missing.yaml"))
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("- ms_api: Mint.tanh\n")
    with pytest.raises(MsprobeException, match="entry 0 needs ms_api and pt_api"):
        compare_mappings.api_mapper(str(wrong))
