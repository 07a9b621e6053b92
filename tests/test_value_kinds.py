"""Any value a wrapped API or a module takes or returns is recorded, and recording goes on: None
(Tensor.__setitem__), tuples holding None, Python scalars and an IntEnum, strings (one with a lone
surrogate), nested lists and dicts, a dataclass, objects whose repr raises. The records equal the
original 1.2.1's for the same script (tests/parity/value_kinds.py; fixture made as told in
tests/fixtures/original_1.2.1/README.md, "value_kinds"). For the two kinds where 1.2.1 itself
crashes (an IntEnum returned by a module, a dict with non-str keys) ours records them as 1.2.1
records such values elsewhere."""
import json
import os

import pytest
from conftest import TESTS_DIR, run_python
from dump_files import load_dump, load_json
from original_dumps import matching_tensor_records, without_hook_view_as
from tolerances import same_stat_as_original

SCRIPT = os.path.join(TESTS_DIR, "parity", "value_kinds.py")
FIXTURE = os.path.join(TESTS_DIR, "fixtures", "original_1.2.1", "value_kinds")
# What 1.2.1 records; "intenum" and "int_keys" crash it (see docs/compatibility.md).
ORIGINAL_KINDS = ("none,tuple_none,int,float,bool,str,surrogate,nested,dataclass,unprintable,"
                  "unprintable_in_list")
CRASHING_KINDS = "intenum,int_keys"


def loss_line(stdout):
    return [line for line in stdout.splitlines() if line.startswith("loss ")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    done = {}

    def run(kinds, *extra):
        key = (kinds,) + extra
        if key not in done:
            work = tmp_path_factory.mktemp("value_kinds")
            r = run_python(SCRIPT, "--kinds", kinds, *extra, cwd=work)
            done[key] = (work, r)
        return done[key]
    return run


def non_tensor_values(node):
    """The record with every tensor record replaced by its dtype and shape (what stays exact)."""
    if isinstance(node, dict):
        if "dtype" in node and "shape" in node:
            return ("tensor", node["dtype"], tuple(node["shape"]))
        return {k: non_tensor_values(v) for k, v in node.items()}
    if isinstance(node, list):
        return [non_tensor_values(v) for v in node]
    return node


def test_records_equal_the_originals(runs):
    work, r = runs(ORIGINAL_KINDS)
    assert "internal error" not in r.stderr + r.stdout
    ours, _, construct = load_dump(work / "dump")
    orig = load_json(os.path.join(FIXTURE, "dump.json"))
    orig["data"] = without_hook_view_as(orig["data"])
    assert list(ours["data"]) == list(orig["data"])
    assert "Tensor.__setitem__.0.forward" in ours["data"]
    assert ours["data"]["Tensor.__setitem__.0.forward"]["output"] == [None]
    for entry in orig["data"]:
        assert non_tensor_values(ours["data"][entry]) == non_tensor_values(orig["data"][entry]), entry
    for entry, path, u, t in matching_tensor_records(ours["data"], orig["data"]):
        for key in ("Max", "Min", "Mean", "Norm"):
            assert same_stat_as_original(u[key], t[key], t, key), (entry, path, key, u[key], t[key])
    assert construct == without_hook_view_as(load_json(os.path.join(FIXTURE, "construct.json")))


def test_each_kind_as_recorded(runs):
    work, _ = runs(ORIGINAL_KINDS)
    data = load_dump(work / "dump")[0]["data"]

    def out(kind):
        return non_tensor_values(data[f"Module.kinds.k_{kind}.Returns.forward.0"]["output"])
    t = ("tensor", "torch.float32", (2, 4))
    assert out("none") == [None]
    assert out("tuple_none") == [t, None]
    assert out("int") == [{"type": "int", "value": 3}]
    assert out("float") == [{"type": "float", "value": 2.5}]
    assert out("bool") == [{"type": "bool", "value": True}]
    assert out("str") == [{"type": "str", "value": "text"}]
    assert out("surrogate") == [{"type": "str", "value": "a\ud800b"}]
    assert out("nested") == [[[t, {"type": "int", "value": 1}],
                              {"a": t, "b": [None, {"type": "str", "value": "x"},
                                             {"type": "float", "value": 2.0}]}]]
    assert out("dataclass") == [{"first": t, "second": None}]
    assert out("unprintable") == [None]
    assert out("unprintable_in_list") == [[t, None]]
    assert data["Tensor.__bool__.0.forward"]["output"] == [{"type": "bool", "value": True}]
    assert data["Tensor.__mul__.0.forward"]["input_args"][1] == {"type": "Color", "value": 1}


def test_kinds_that_crash_the_original_are_recorded(runs):
    work, r = runs(CRASHING_KINDS)
    assert "internal error" not in r.stderr + r.stdout
    data = load_dump(work / "dump")[0]["data"]
    assert data["Module.kinds.k_intenum.Returns.forward.0"]["output"] == [{"type": "Color", "value": 1}]
    keys = data["Module.kinds.k_int_keys.Returns.forward.0"]["output"][0]
    assert list(keys) == ["1", "(2, 3)"]
    assert keys["(2, 3)"] == {"type": "str", "value": "pair"}
    # recording went on after them: the APIs after the modules are there, backward included
    assert "Torch.exp.0.backward" in data and "Module.kinds.k_int_keys.lin.Linear.backward.0" in data


@pytest.mark.parametrize("kinds", [ORIGINAL_KINDS, CRASHING_KINDS])
def test_training_unchanged(runs, kinds):
    _, probed = runs(kinds)
    _, plain = runs(kinds, "--no-probe")
    assert loss_line(probed.stdout) and loss_line(probed.stdout) == loss_line(plain.stdout)


def test_dump_json_is_plain_ascii(runs):
    work, _ = runs(ORIGINAL_KINDS)
    raw = (work / "dump" / "step0" / "rank" / "dump.json").read_bytes()
    assert raw.isascii() and b"\\ud800" in raw
    json.loads(raw)
