"""MindSpore's own library cells as a real client would train them, against the original 1.2.1
(fixtures: tests/fixtures/original_1.2.1_mindspore/real_cells, made by make_real_cells_fixtures.py):
an encoder with nn.LSTM and an nn.Transformer (encoder-decoder), two steps at L0, L1 and mix.
The same entries in the same order and the same construct.json in every step (inside the LSTM,
the backward of its Concat belongs to the LSTM cell's backward, as in 1.2.1), and training
unchanged. With msprobe's seed_all(rm_dropout=True), 1.2.1 cannot build nn.Transformer on
MindSpore 2.10; ours dumps it (docs/compatibility.md)."""
import json
import os

import pytest
from ms_helpers import HERE, load_json, run_python

SCRIPT = os.path.join(HERE, "real_cells_net.py")
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "original_1.2.1_mindspore", "real_cells")
CASES = [("lstm", "L0", ()), ("lstm", "L1", ()), ("lstm", "mix", ()),
         ("transformer", "L0", ("--plain-seed",)), ("transformer", "L1", ("--plain-seed",)),
         ("transformer", "mix", ("--plain-seed",))]


def fixture(model, level, extra):
    name = f"{model}_{level}" + ("_plain_seed" if extra else "")
    with open(os.path.join(FIXTURES, name + ".json")) as f:
        return json.load(f)


def losses(stdout):
    return [line for line in stdout.splitlines() if line.startswith("step ")]


@pytest.fixture(scope="module")
def unprobed():
    done = {}

    def run(model):  # no probe: mindspore.set_seed, the same seeds as seed_all's
        if model not in done:
            done[model] = losses(run_python(SCRIPT, "--model", model, "--no-probe").stdout)
        return done[model]
    return run


@pytest.mark.parametrize("model,level,extra", CASES, ids=[f"{m}-{lv}" for m, lv, _ in CASES])
def test_same_entries_and_construct_as_original(model, level, extra, tmp_path, unprobed):
    r = run_python(SCRIPT, "--model", model, "--level", level, *extra, cwd=tmp_path)
    assert "internal error" not in r.stdout + r.stderr
    orig = fixture(model, level, extra)
    assert sorted(os.listdir(tmp_path / "dump")) == sorted(orig["steps"])
    for step, expected in orig["steps"].items():
        rank = tmp_path / "dump" / step / "rank"
        assert list(load_json(rank / "dump.json")["data"]) == expected["entries"], step
        assert load_json(rank / "construct.json") == expected["construct"], step
    assert losses(r.stdout) == unprobed(model)


def test_lstm_concat_backward_belongs_to_the_lstm_cell(tmp_path):
    run_python(SCRIPT, "--model", "lstm", "--level", "mix", cwd=tmp_path)
    construct = load_json(tmp_path / "dump" / "step0" / "rank" / "construct.json")
    assert construct["Primitive.concat.Concat.0.backward"] == \
        "Cell.enc.rnn.rnn._DynamicLSTMCPUGPU.backward.0"


def test_transformer_with_seed_all_where_the_original_fails(tmp_path, unprobed):
    assert "Seed0" in fixture("transformer", "mix", ())["error"]
    r = run_python(SCRIPT, "--model", "transformer", "--level", "mix", cwd=tmp_path)
    assert "internal error" not in r.stdout + r.stderr
    data = load_json(tmp_path / "dump" / "step0" / "rank" / "dump.json")["data"]
    construct = load_json(tmp_path / "dump" / "step0" / "rank" / "construct.json")
    for cell in ("Cell.model.encoder.TransformerEncoder", "Cell.model.decoder.TransformerDecoder",
                 "Cell.model.Transformer", "Cell.head.Dense"):
        assert f"{cell}.forward.0" in data and f"{cell}.backward.0" in data, cell
    assert construct and all(p is None or p in construct or p in data for p in construct.values())
    assert losses(r.stdout) == unprobed("transformer")
