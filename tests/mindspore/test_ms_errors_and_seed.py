"""Bad input gets one clear error; seed_all behaves as documented; the API list is checked."""
import json

import pytest
from ms_helpers import run_python

HEAD = r"""
import numpy as np, mindspore as ms
from mindspore import Tensor, nn, ops
ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")
from msprobe.mindspore import PrecisionDebugger, seed_all
def show(fn):
    try:
        fn()
        print("NO-ERROR")
    except Exception as e:
        print("ERR", type(e).__name__, str(e).splitlines()[0])
"""


def run(tmp_path, body):
    return run_python(HEAD + body, cwd=tmp_path).stdout.splitlines()


@pytest.mark.parametrize("kwargs,expected", [
    ("task='dump'", 'argument: "task" must be one of'),
    ("level='L3'", 'argument: "level" must be one of'),
    ("dump_path=3", "'dump_path' must be a str"),
    ("config_path=['x']", "'config_path' must be a str"),
    ("step=3", "'step' must be a list"),
    ("config_path='missing.json'", "missing.json"),
    ("task='free_benchmark', level='L0'", "Task free_benchmark is not supported in this mode: pynative."),
])
def test_constructor_errors(tmp_path, kwargs, expected):
    out = run(tmp_path, f"show(lambda: PrecisionDebugger({kwargs}))")
    assert out[-1].startswith("ERR") and expected in out[-1], out


def test_bad_config_names_the_field(tmp_path):
    (tmp_path / "bad.json").write_text(json.dumps({"task": "statistics", "level": "L1",
                                                   "statistics": {"data_mode": ["sideways"]}}))
    out = run(tmp_path, "show(lambda: PrecisionDebugger(config_path='bad.json'))")
    assert out[-1].startswith("ERR") and "data_mode" in out[-1] and "sideways" in out[-1], out


def test_graph_mode_is_refused_clearly(tmp_path):
    out = run(tmp_path, "ms.set_context(mode=ms.GRAPH_MODE)\n"
                        "show(lambda: PrecisionDebugger(task='statistics', level='L1'))")
    assert out[-1] == ("ERR MsprobeException Data dump is not supported in graph_kbyk mode when "
                       "dump level is api."), out


def test_model_errors(tmp_path):
    out = run(tmp_path, """
d = PrecisionDebugger(task="statistics", dump_path="./dump", level="L0")
show(lambda: d.start())
show(lambda: d.start("not a cell"))
show(lambda: d.start([nn.ReLU(), 3]))
show(lambda: PrecisionDebugger.step())
""")
    assert out[-4].startswith("ERR MsprobeException The current level is L0, the model cannot be None")
    assert "must be a mindspore.nn.Cell or list[mindspore.nn.Cell]" in out[-3] and "str" in out[-3]
    assert "must be a mindspore.nn.Cell" in out[-2] and "int" in out[-2]
    assert out[-1] == "NO-ERROR"


def test_calls_before_construction(tmp_path):
    out = run(tmp_path, "show(lambda: PrecisionDebugger.start())\nshow(PrecisionDebugger.stop)")
    assert out[-2:] == ["ERR Exception PrecisionDebugger instance is not created."] * 2


def test_api_list_is_validated(tmp_path):
    cases = {
        "notyaml.yaml": "ops: [abs\n",
        "section.yaml": "ops:\n  - abs\nmint.fft:\n  - fft\n",
        "notlist.yaml": "ops: abs\n",
        "item.yaml": "tensor:\n  - __add__\n  - 3\n",
        "toplist.yaml": "- abs\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
    out = run(tmp_path, """
from msprobe.mindspore.api_wrapper import load_api_list, SUPPORT_WRAP_OPS
for name in ["notyaml.yaml", "section.yaml", "notlist.yaml", "item.yaml", "toplist.yaml", "gone.yaml"]:
    show(lambda: load_api_list(name))
full = load_api_list(SUPPORT_WRAP_OPS)
print("SECTIONS", sorted(full), len(full["ops"]), len(full["tensor"]), len(full["mint.ops"]),
      len(full["mint.nn.functional"]), len(full["communication.comm_func"]))
""")
    errors = out[-7:-1]
    assert all(e.startswith("ERR ValueError") for e in errors), errors
    assert "notyaml.yaml: not valid YAML (line" in errors[0]
    assert "unknown section 'mint.fft'" in errors[1]
    assert "section 'ops' must be a list of API names" in errors[2]
    assert "section 'tensor' item 2" in errors[3]
    assert "must map sections" in errors[4]
    assert "gone.yaml: cannot read" in errors[5]
    assert out[-1] == ("SECTIONS ['communication.comm_func', 'mint.nn.functional', 'mint.ops', "
                       "'ops', 'tensor'] 499 253 179 48 14")


def test_seed_all(tmp_path):
    out = run(tmp_path, """
import os, random
from mindspore import mint
show(lambda: seed_all(seed=-1))
show(lambda: seed_all(seed=1.5))
show(lambda: seed_all(mode="yes"))
show(lambda: seed_all(rm_dropout=1))
def draw():
    seed_all(42, mode=True, rm_dropout=False)
    return random.random(), ops.uniform((3,), Tensor(0.0), Tensor(1.0)).asnumpy().tolist()
print("SAME", draw() == draw(), os.environ["PYTHONHASHSEED"], os.environ["HCCL_DETERMINISTIC"])
x = Tensor(np.ones((4, 4), np.float32))
before = nn.Dropout(p=0.5)(x)  # noqa
seed_all(7)
drop = mint.nn.Dropout(p=0.9); drop.set_train(True)
prim = ops.Dropout(keep_prob=0.1)
print("KEPT", bool((drop(x) == x).all()), bool((prim(x)[0] == x).all()),
      bool((mint.nn.functional.dropout(x, p=0.9, training=True) == x).all()))
""")
    assert out[-6].startswith("ERR MsprobeException seed_all: seed must be an int")
    assert out[-5].startswith("ERR MsprobeException seed_all: seed must be an int")
    assert out[-4].startswith("ERR MsprobeException seed_all: mode must be a bool")
    assert out[-3].startswith("ERR MsprobeException seed_all: rm_dropout must be a bool")
    assert out[-2] == "SAME True 42 True"
    assert out[-1] == "KEPT True True True"
