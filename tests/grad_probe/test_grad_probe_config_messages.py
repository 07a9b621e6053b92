"""A bad grad_probe section gives 1.2.1's sentence (tests/fixtures/grad_probe_1.2.1*/
config_messages.json, made by make_config_messages.py) in one line that also names the field and
its value. Where 1.2.1 accepts the section and later falls back to its default bounds without a
word (MindSpore: out-of-range or equal bounds), ours refuses it (docs/compatibility.md#grad_probe)."""
import json
import os
import sys

import pytest
from conftest import TESTS_DIR
from conftest import run_python as run_torch_python

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TESTS_DIR, "mindspore"))
from make_config_messages import CASES  # noqa: E402

FIXTURES = {"pytorch": os.path.join(TESTS_DIR, "fixtures", "grad_probe_1.2.1", "config_messages.json"),
            "mindspore": os.path.join(TESTS_DIR, "fixtures", "grad_probe_1.2.1_mindspore",
                                      "config_messages.json")}

# Every case's message from ours, one JSON object on stdout.
PROBE = """
import json, sys
from msprobe.{fw} import PrecisionDebugger
out = {{}}
for name, section in json.loads(sys.argv[1]).items():
    with open("config.json", "w") as f:
        json.dump({{"task": "grad_probe", "dump_path": "./out", "grad_probe": section}}, f)
    try:
        PrecisionDebugger("config.json")
        out[name] = None
    except Exception as e:
        out[name] = [type(e).__name__, str(e)]
print("MESSAGES " + json.dumps(out))
"""


def ours(framework, cwd):
    if framework == "pytorch":
        run = run_torch_python
    else:
        from ms_helpers import run_python as run
    r = run(PROBE.format(fw=framework), json.dumps(CASES), cwd=str(cwd))
    line = next(x for x in r.stdout.splitlines() if x.startswith("MESSAGES "))
    return json.loads(line[len("MESSAGES "):])


@pytest.mark.parametrize("framework", ["pytorch", "mindspore"])
def test_bad_sections_give_the_originals_sentence(tmp_path, framework):
    with open(FIXTURES[framework]) as f:
        original = json.load(f)
    assert set(original) == set(CASES)
    got = ours(framework, tmp_path)
    for name, section in CASES.items():
        assert got[name] is not None, f"{name}: accepted"
        kind, message = got[name]
        assert kind == "ConfigError" and "\n" not in message, (name, got[name])
        field = "grad_probe." + next(iter(section))
        assert f'"{field}' in message, (name, message)   # the field (or its item) it is about
        if original[name] is not None:
            assert original[name][1] in message, (name, message)
        else:   # 1.2.1 substitutes its default bounds silently; ours says what is wrong
            assert "bounds" in message, (name, message)
    assert not (tmp_path / "out").exists()
