"""MindSpore: whatever a cell or a wrapped API returns is recorded, and recording goes on (None, a
tuple holding None, Python scalars, strings, nested lists and dicts, a dataclass, an object whose
repr raises; Tensor.nelement/is_complex and ops.is_tensor return Python values). The records equal
the original 1.2.1's for tests/mindspore/value_kinds_net.py (fixture made as its README says),
except the one deliberate difference of Primitive backward outputs (test_ms_parity_original.py)."""
import os

import pytest
from ms_helpers import HERE, load_dump, load_json, run_python, tensors
from tolerances import same_stat_as_original

SCRIPT = os.path.join(HERE, "value_kinds_net.py")
FIXTURE = os.path.join(os.path.dirname(HERE), "fixtures", "original_1.2.1_mindspore", "value_kinds")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("ms_value_kinds")
    probed = run_python(SCRIPT, cwd=work)
    plain = run_python(SCRIPT, "--no-probe", cwd=work)
    return work, probed, plain


def without_tensors(node):
    if isinstance(node, dict):
        if node.get("type") == "mindspore.Tensor":
            return ("tensor", node["dtype"], tuple(node["shape"]))
        return {k: without_tensors(v) for k, v in node.items()}
    if isinstance(node, list):
        return [without_tensors(v) for v in node]
    return node


def is_primitive_backward(entry):
    return entry.startswith("Primitive.") and entry.endswith(".backward")


def test_records_equal_the_originals(runs):
    work, probed, _ = runs
    assert "internal error" not in probed.stdout + probed.stderr
    ours, _, construct = load_dump(work / "dump")
    orig = load_json(os.path.join(FIXTURE, "dump.json"))
    assert list(ours["data"]) == list(orig["data"])
    for entry, value in orig["data"].items():
        mine = ours["data"][entry]
        if is_primitive_backward(entry):  # the deliberate difference: compared as in the parity test
            assert without_tensors(mine["input"]) == without_tensors(value["input"]), entry
            continue
        assert without_tensors(mine) == without_tensors(value), entry
        mt = dict(tensors(mine))
        for path, t in tensors(value):
            for key in ("Max", "Min", "Mean", "Norm"):
                assert same_stat_as_original(mt[path][key], t[key], t, key), (entry, path, key)
    assert construct == load_json(os.path.join(FIXTURE, "construct.json"))


def test_each_kind_as_recorded(runs):
    work, _, _ = runs
    data = load_dump(work / "dump")[0]["data"]
    outs = [without_tensors(data[f"Cell.kinds.{i}.Returns.forward.0"]["output"]) for i in range(9)]
    t = ("tensor", "Float32", (2, 4))
    assert outs == [[None], [t, None], [{"type": "int", "value": 3}], [{"type": "float", "value": 2.5}],
                    [{"type": "bool", "value": True}], [{"type": "str", "value": "text"}],
                    [[[t, {"type": "int", "value": 1}],
                      {"a": t, "b": [None, {"type": "str", "value": "x"}, {"type": "float", "value": 2.0}]}]],
                    [{"first": t, "second": None}], [None]]
    assert data["Tensor.nelement.0.forward"]["output"] == [{"type": "int", "value": 8}]
    assert data["Functional.is_tensor.0.forward"]["output"] == [{"type": "bool", "value": True}]


def test_training_unchanged(runs):
    _, probed, plain = runs
    loss = [line for line in probed.stdout.splitlines() if line.startswith("loss")]
    assert loss and loss == [line for line in plain.stdout.splitlines() if line.startswith("loss")]
