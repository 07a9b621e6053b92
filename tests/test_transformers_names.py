"""A transformers model whose sub-module returns a ModelOutput (dict-like): our dump has the same
entry names as the original 1.2.1's (tests/fixtures/original_1.2.1/tiny_decoder_{level}.txt,
made by tests/parity/tiny_decoder.py with the original). 1.2.1 hooks the tensor attributes of
such an output for backward, so it records `Module.transformer.GPT2Model.backward.0` and, in
mix, one more `Tensor.view_as` made by torch's backward-hook machinery. Needs transformers
(installed by scripts/setup_and_demo.sh and .ci/run)."""
import json
import os

import pytest
from conftest import TESTS_DIR, run_python

FIXTURES = os.path.join(TESTS_DIR, "fixtures", "original_1.2.1")


def original_names(level):
    with open(os.path.join(FIXTURES, f"tiny_decoder_{level}.txt")) as f:
        return f.read().split()


@pytest.mark.parametrize("level", ["L0", "mix"])
def test_model_output_module_names_match_original(level, tmp_path):
    run_python(os.path.join(TESTS_DIR, "parity", "tiny_decoder.py"), "--level", level,
               cwd=tmp_path, timeout=600)
    with open(tmp_path / "dump" / "step0" / "rank" / "dump.json") as f:
        ours = list(json.load(f)["data"])
    orig = original_names(level)
    assert "Module.transformer.GPT2Model.backward.0" in ours
    # parameters_grad entries: the same set; their position is the writer's business (1.2.1
    # reserves it at the module's first forward, see tests/fixtures/compare_1.2.1/INTEROP.md)
    grads = lambda names: [n for n in names if n.endswith(".parameters_grad")]  # noqa: E731
    assert sorted(grads(ours)) == sorted(grads(orig))
    rest = lambda names: [n for n in names if not n.endswith(".parameters_grad")]  # noqa: E731
    assert rest(ours) == rest(orig)
